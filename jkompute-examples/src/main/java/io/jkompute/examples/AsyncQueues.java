package io.jkompute.examples;

import io.jkompute.Algorithm;
import io.jkompute.Constants;
import io.jkompute.DeviceProperties;
import io.jkompute.Manager;
import io.jkompute.MemoryType;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.OpSyncLocal;
import io.jkompute.Sequence;
import io.jkompute.Shader;
import io.jkompute.Tensor;
import io.jkompute.Workgroup;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Two sequences on two queues run at once (evalAsync / evalAwait); a third waits for both on the GPU through
 * timeline semaphores, with no host round trip in between, and combines their results.
 */
public final class AsyncQueues implements Example {
    /** Creates the example; {@link Examples#all()} lists it and the CLI runs it by name. */
    public AsyncQueues() {
    }

    static final int N = 4096;
    static final int LOCAL = 64;
    static final String WORK = """
            #version 450
            layout (local_size_x = 64) in;
            layout (push_constant) uniform P { uint seed; uint rounds; } pc;
            layout (set = 0, binding = 0) buffer O { uint o[]; };
            void main() {
                uint i = gl_GlobalInvocationID.x;
                uint x = i ^ pc.seed;
                for (uint k = 0; k < pc.rounds; k++) { x = x * 1664525u + 1013904223u; }
                o[i] = x;
            }
            """;
    static final String COMBINE = """
            #version 450
            layout (local_size_x = 64) in;
            layout (set = 0, binding = 0) buffer A { uint a[]; };
            layout (set = 0, binding = 1) buffer B { uint b[]; };
            layout (set = 0, binding = 2) buffer C { uint c[]; };
            void main() { uint i = gl_GlobalInvocationID.x; c[i] = a[i] ^ b[i]; }
            """;

    @Override
    public String name() {
        return "async-queues";
    }

    @Override
    public String description() {
        return "two sequences on two queues at once, a third waiting for them on the GPU (timeline semaphores)";
    }

    /** Queue family indices for two compute queues: two of one family, two families, or one queue as a fallback. */
    public static int[] twoComputeQueues(DeviceProperties p) {
        List<Integer> compute = new ArrayList<>();
        for (DeviceProperties.QueueFamily f : p.queueFamilies()) {
            if (f.compute()) {
                if (f.queueCount() >= 2) {
                    return new int[] {f.index(), f.index()};
                }
                compute.add(f.index());
            }
        }
        return compute.size() >= 2 ? new int[] {compute.get(0), compute.get(1)} : new int[] {compute.get(0)};
    }

    /** The CPU reference of one WORK output element. */
    public static int reference(int i, int seed, int rounds) {
        int x = i ^ seed;
        for (int k = 0; k < rounds; k++) {
            x = x * 1664525 + 1013904223;
        }
        return x;
    }

    /** Runs the three sequences; returns c = work(seedA) ^ work(seedB). */
    public static int[] compute(Manager mgr, int rounds) {
        int q1 = mgr.queueCount() > 1 ? 1 : 0;
        byte[] work = Shader.compile(WORK);
        Workgroup wg = Workgroup.covering(N, LOCAL);
        try (Tensor a = mgr.tensor(io.jkompute.DataType.UINT32, new long[] {N}, MemoryType.STORAGE);
                Tensor b = mgr.tensor(io.jkompute.DataType.UINT32, new long[] {N}, MemoryType.STORAGE);
                Tensor c = mgr.tensor(io.jkompute.DataType.UINT32, new long[] {N}, MemoryType.DEVICE);
                Algorithm fillA = mgr.algorithm(List.of(a), work, wg, Constants.NONE, Constants.uints(0x1234, rounds));
                Algorithm fillB = mgr.algorithm(List.of(b), work, wg, Constants.NONE, Constants.uints(0xBEEF, rounds));
                Algorithm combine = mgr.algorithm(List.of(a, b, c), Shader.compile(COMBINE), wg);
                Sequence sa = mgr.sequence(0);
                Sequence sb = mgr.sequence(q1);
                Sequence sc = mgr.sequence(0)) {
            sa.record(new OpAlgoDispatch(fillA));
            sb.record(new OpAlgoDispatch(fillB));
            sc.record(new OpAlgoDispatch(combine)).record(new OpSyncLocal(c)).waitFor(sa).waitFor(sb);
            sa.evalAsync();
            sb.evalAsync();
            sc.evalAsync();   // submitted at once: the GPU holds it until sa and sb have finished
            sc.evalAwait();
            sa.evalAwait();
            sb.evalAwait();
            return c.toIntArray();
        }
    }

    @Override
    public void run(PrintStream out) {
        int[] families;
        try (Manager probe = new Manager()) {
            families = twoComputeQueues(probe.deviceProperties());
        }
        try (Manager mgr = new Manager(0, families, List.of())) {
            out.println("device: " + mgr.deviceProperties().name() + ", queue families " + java.util.Arrays.toString(families));
            int rounds = 2000;
            long t0 = System.nanoTime();
            int[] c = compute(mgr, rounds);
            long t1 = System.nanoTime();
            int wrong = 0;
            for (int i = 0; i < N; i++) {
                if (c[i] != (reference(i, 0x1234, rounds) ^ reference(i, 0xBEEF, rounds))) {
                    wrong++;
                }
            }
            out.printf("%d elements, %d rounds each, on %d queue(s): %s (%.2f ms)%n", N, rounds, mgr.queueCount(),
                    wrong == 0 ? "all match the CPU" : wrong + " MISMATCHES", (t1 - t0) / 1e6);
        }
    }

    /** Runs the example on the default device and prints its result. */
    public static void main(String[] args) {
        new AsyncQueues().run(System.out);
    }
}
