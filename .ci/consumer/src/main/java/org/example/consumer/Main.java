package org.example.consumer;

import io.jkompute.Algorithm;
import io.jkompute.Manager;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Sequence;
import io.jkompute.Shader;
import io.jkompute.Tensor;
import io.jkompute.graph.Graph;
import io.jkompute.graph.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** A tiny Vulkan computation and a tiny graph; exits 1 when either result is wrong. */
public final class Main {
    public static void main(String[] args) throws Exception {
        float[] product;
        try (Manager mgr = new Manager()) {
            Tensor a = mgr.tensor(new float[] {2, 4, 6});
            Tensor b = mgr.tensor(new float[] {0, 1, 2});
            Tensor out = mgr.tensor(new float[3]);
            Algorithm mult = mgr.algorithm(List.of(a, b, out), Shader.compile("""
                    #version 450
                    layout (local_size_x = 1) in;
                    layout (binding = 0) buffer A { float a[]; };
                    layout (binding = 1) buffer B { float b[]; };
                    layout (binding = 2) buffer O { float o[]; };
                    void main() { uint i = gl_GlobalInvocationID.x; o[i] = a[i] * b[i]; }
                    """));
            try (Sequence seq = mgr.sequence()) {
                seq.record(new OpSyncDevice(a, b)).record(new OpAlgoDispatch(mult)).record(new OpSyncLocal(out)).eval();
            }
            product = out.toFloatArray();
        }
        System.out.println("vulkan: " + Arrays.toString(product));
        if (!Arrays.equals(product, new float[] {0, 4, 12})) {
            System.err.println("wrong product");
            System.exit(1);
        }

        Path app = Files.createTempFile("consumer-ping", ".yaml");
        Files.writeString(app, """
                name: tx
                components:
                - { name: out, type: DoubleBufferTransmitter, parameters: { capacity: 1 } }
                - { type: DownstreamReceptiveSchedulingTerm, parameters: { transmitter: out } }
                - { type: CountSchedulingTerm, parameters: { count: 10 } }
                - name: ping
                  type: JavaCodelet
                  parameters: { codelet_name: io.jkompute.graph.std.PingTx, codelet_params: { transmitter: out } }
                ---
                name: rx
                components:
                - { name: in, type: DoubleBufferReceiver, parameters: { capacity: 1 } }
                - { type: MessageAvailableSchedulingTerm, parameters: { receiver: in } }
                - name: pong
                  type: JavaCodelet
                  parameters: { codelet_name: io.jkompute.graph.std.PingRx, codelet_params: { receiver: in } }
                ---
                components:
                - { type: Connection, parameters: { source: tx/out, target: rx/in } }
                ---
                name: sched
                components:
                - { name: clock, type: RealtimeClock }
                - { type: GreedyScheduler, parameters: { clock: clock } }
                """);
        try (Graph g = Graph.load(app)) {
            RunResult r = g.run();
            long received = r.statistics().entity("rx").messagesIn();
            System.out.println("graph: " + r.reason() + ", rx received " + received + " message(s)");
            if (received != 10) {
                System.err.println("expected 10 messages");
                System.exit(1);
            }
        } finally {
            Files.delete(app);
        }
    }
}
