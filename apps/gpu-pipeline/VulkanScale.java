import io.jkompute.Algorithm;
import io.jkompute.DataType;
import io.jkompute.Manager;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.Sequence;
import io.jkompute.Shader;
import io.jkompute.Tensor;
import io.jkompute.Workgroup;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Transmitter;
import io.jkompute.graph.std.VulkanDevice;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Vulkan kernel stage: y = 2x + 1 on the GPU, from the first device tensor of each message into a tensor from a
 * device pool. The data never leaves the GPU. Pool blocks repeat, so one recorded (algorithm, sequence) pair per
 * input/output block pair is built once and re-evaluated after that.
 *
 * <p>The tick does not wait for the GPU: the dispatch waits on the GPU for the input's upload ({@code x.ready()}),
 * and the output is marked ready at the dispatch's point, so the read-back downstream waits for it on the GPU too.
 */
public class VulkanScale extends CodeletAdapter {
    static final String GLSL = """
            #version 450
            layout(local_size_x = 64) in;
            layout(set = 0, binding = 0) readonly buffer In { float x[]; };
            layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
            layout(constant_id = 0) const uint N = 1024;
            void main() {
                uint i = gl_GlobalInvocationID.x;
                if (i < N) { y[i] = 2.0 * x[i] + 1.0; }
            }
            """;

    private record Pair(Tensor in, Tensor out) {
    }

    private record Kernel(Algorithm algorithm, Sequence sequence) {
    }

    private Receiver rx;
    private Transmitter tx;
    private Allocator pool;
    private Manager mgr;
    private byte[] spirv;
    private Map<Pair, Kernel> kernels = new HashMap<>();
    private Map<Pair, Kernel> retired = new HashMap<>();

    @Override
    public void start() {
        rx = receiver(param("receiver"));
        tx = transmitter(param("transmitter"));
        pool = allocator(param("allocator"));
        mgr = component(param("device"), VulkanDevice.class).manager();
        spirv = Shader.compile(GLSL);
    }

    @Override
    public void tick() {
        Message in = rx.receive();
        if (in == null) {
            throw new IllegalStateException("no message in " + rx.path());
        }
        DeviceTensor x = in.get(DeviceTensor.class);
        if (x == null || x.dataType() != DataType.FLOAT32) {
            throw new IllegalStateException("expected a float32 device tensor, got " + in.names());
        }
        long n = x.elementCount();
        DeviceTensor y = DeviceTensor.allocate(pool, DataType.FLOAT32, x.shape());
        Message out = Message.create().add("device_tensor", y);
        if (kernels.size() >= 64 && !kernels.containsKey(new Pair(x.tensor(), y.tensor()))) {
            // inputs that are not from a pool (device tensors arriving over the network without one) never repeat:
            // keep the cache bounded. The previous generation is closed only now, 64 frames later: its outputs
            // (at most result_pool's blocks are alive) were consumed long ago, so nothing waits on its points.
            close(retired);
            retired = kernels;
            kernels = new HashMap<>();
        }
        Kernel k = kernels.computeIfAbsent(new Pair(x.tensor(), y.tensor()), p -> {
            Algorithm a = mgr.algorithm(List.of(p.in(), p.out()), spirv, Workgroup.covering(n, 64),
                    io.jkompute.Constants.uints((int) n), io.jkompute.Constants.NONE);
            return new Kernel(a, mgr.sequence().record(new OpAlgoDispatch(a)));
        });
        Sequence s = k.sequence();
        if (s.isRunning()) {
            s.evalAwait();   // this pair's previous dispatch: long done, its output was read back before y came round
        }
        s.nextWaitsFor(x.ready()).evalAsync();
        y.readyAfter(s.point());
        tx.publish(out, in.timestamp() == null ? 0 : in.timestamp().acqtime());
    }

    @Override
    public void stop() {
        close(retired);
        close(kernels);
    }

    private static void close(Map<Pair, Kernel> ks) {
        for (Kernel k : ks.values()) {
            k.sequence().close();
            k.algorithm().close();
        }
        ks.clear();
    }
}
