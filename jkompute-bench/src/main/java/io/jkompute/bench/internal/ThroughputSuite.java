package io.jkompute.bench.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jkompute.Algorithm;
import io.jkompute.Constants;
import io.jkompute.DataType;
import io.jkompute.Manager;
import io.jkompute.MemoryType;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Shader;
import io.jkompute.Tensor;
import io.jkompute.Workgroup;
import io.jkompute.bench.DispatchLoop;
import io.jkompute.bench.Summary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Suite 3, dispatch throughput in Kompute's own benchmark shape: S sequences × D recorded dispatches × E evaluations
 * (10 × 10 × 10,000 of 102,400 elements in full mode), run by {@link DispatchLoop}. The add shader is first checked on
 * random data; the loop's own check (every output element = S·D·E) runs after.
 */
public final class ThroughputSuite implements Suite {
    @Override
    public String name() {
        return "throughput";
    }

    @Override
    public String title() {
        return "Dispatch throughput (Kompute's benchmark shape)";
    }

    @Override
    public int steps(Context ctx) {
        return 2;
    }

    @Override
    public void run(Context ctx, Recorder out) {
        int sequences = 10, dispatches = 10;
        int evaluations = ctx.quick() ? 5 : 10_000;
        int n = ctx.quick() ? 10_240 : 102_400;
        Manager mgr = ctx.manager();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = HostData.randomInts(arena, n, ctx.seed());
            MemorySegment b = HostData.randomInts(arena, n, ctx.seed());
            MemorySegment o = HostData.randomInts(arena, n, ctx.seed());
            try (Tensor ta = mgr.tensor(DataType.UINT32, a, new long[] {n}, MemoryType.DEVICE);
                    Tensor tb = mgr.tensor(DataType.UINT32, b, new long[] {n}, MemoryType.DEVICE);
                    Tensor to = mgr.tensor(DataType.UINT32, o, new long[] {n}, MemoryType.DEVICE);
                    Algorithm add = mgr.algorithm(List.of(ta, tb, to), Shader.compile(DispatchLoop.SHADER),
                            Workgroup.covering(n, 256), Constants.NONE, Constants.uints(n))) {
                mgr.eval(new OpSyncDevice(ta, tb, to), new OpAlgoDispatch(add), new OpSyncLocal(to));
                String failure = null;
                for (int i = 0; i < n && failure == null; i++) {
                    int want = o.getAtIndex(JAVA_INT, i) + a.getAtIndex(JAVA_INT, i) + b.getAtIndex(JAVA_INT, i);
                    int got = to.data().getAtIndex(JAVA_INT, i);
                    if (got != want) {
                        failure = "element " + i + " is " + Integer.toUnsignedString(got) + ", expected "
                                + Integer.toUnsignedString(want);
                    }
                }
                if (!out.check("uint add, " + n + " random elements", failure)) {
                    ctx.step("");
                    return;
                }
            }
        }
        ctx.step("throughput check");
        DispatchLoop.Result r = DispatchLoop.run(mgr, sequences, dispatches, evaluations, n);
        out.check(sequences + " × " + dispatches + " × " + evaluations + " dispatches, every output = " + r.dispatches(),
                r.correct() ? null : "the output does not hold " + r.dispatches() + " everywhere");
        if (r.correct()) {
            out.figure("per dispatch", "jkompute", 0, "µs", Summary.of(new double[] {r.microsPerDispatch()}));
            out.figure("dispatches per second", "jkompute", 0, "1/s", Summary.of(new double[] {1e6 / r.microsPerDispatch()}));
        }
        long[] heap = r.heapSamples(), rss = r.rssSamples();
        out.note(String.format("%d sequences × %d dispatches × %d evaluations of %,d elements; heap after GC %.1f → %.1f MiB,"
                + " resident %.1f → %.1f MiB", sequences, dispatches, evaluations, n, heap[0] / 1048576.0,
                heap[heap.length - 1] / 1048576.0, rss[0] / 1048576.0, rss[rss.length - 1] / 1048576.0));
        ctx.step("throughput loop");
    }
}
