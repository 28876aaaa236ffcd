package io.jkompute.bench;

import io.jkompute.Algorithm;
import io.jkompute.Constants;
import io.jkompute.DataType;
import io.jkompute.Manager;
import io.jkompute.MemoryType;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Sequence;
import io.jkompute.Shader;
import io.jkompute.Tensor;
import io.jkompute.Workgroup;
import io.jkompute.bench.internal.HostMemory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Kompute's benchmark shape: S sequences × D recorded dispatches × E evaluations, each dispatch adding two uint
 * vectors into an output ({@code out += a + b}, with a + b = 1), so the output must end at S·D·E everywhere.
 * Prints µs per dispatch and samples heap (after GC) and resident memory, which must stay flat.
 *
 * <p>{@code java -cp ... io.jkompute.bench.DispatchLoop [sequences dispatches evaluations elements]}
 */
public final class DispatchLoop {
    private DispatchLoop() {
    }

    /** The GLSL of the dispatch: {@code o[i] += a[i] + b[i]} for i below the push constant {@code n}. */
    public static final String SHADER = """
            #version 450
            layout (local_size_x = 256) in;
            layout (push_constant) uniform P { uint n; } pc;
            layout (set = 0, binding = 0) readonly buffer A { uint a[]; };
            layout (set = 0, binding = 1) readonly buffer B { uint b[]; };
            layout (set = 0, binding = 2) buffer O { uint o[]; };
            void main() {
                uint i = gl_GlobalInvocationID.x;
                if (i < pc.n) o[i] += a[i] + b[i];
            }
            """;

    /** What a run measured. */
    public record Result(String device, long dispatches, double microsPerDispatch, boolean correct, long[] heapSamples,
            long[] rssSamples) {}

    /** Runs the loop on {@code mgr}'s device over {@code n}-element vectors and checks the output. */
    public static Result run(Manager mgr, int sequences, int dispatches, int evaluations, int n) {
        return run(mgr, sequences, dispatches, evaluations, n, null);
    }

    /** As {@link #run(Manager, int, int, int, int)}, telling {@code evaluationsDone} every 64 evaluations. */
    public static Result run(Manager mgr, int sequences, int dispatches, int evaluations, int n,
            java.util.function.LongConsumer evaluationsDone) {
        int[] ones = new int[n];
        Arrays.fill(ones, 1);
        List<Sequence> seqs = new ArrayList<>();
        try (Tensor a = mgr.tensor(DataType.UINT32, java.lang.foreign.MemorySegment.ofArray(ones), new long[] {n}, MemoryType.DEVICE);
                Tensor b = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.DEVICE);
                Tensor out = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.DEVICE);
                Algorithm add = mgr.algorithm(List.of(a, b, out), Shader.compile(SHADER), Workgroup.covering(n, 256),
                        Constants.NONE, Constants.uints(n))) {
            mgr.eval(new OpSyncDevice(a, b, out));
            return loop(mgr, seqs, add, out, sequences, dispatches, evaluations, evaluationsDone);
        } finally {
            seqs.forEach(Sequence::close);
        }
    }

    private static Result loop(Manager mgr, List<Sequence> seqs, Algorithm add, Tensor out, int sequences, int dispatches,
            int evaluations, java.util.function.LongConsumer evaluationsDone) {
        for (int s = 0; s < sequences; s++) {
            Sequence seq = mgr.sequence();
            for (int d = 0; d < dispatches; d++) {
                seq.record(new OpAlgoDispatch(add));
            }
            seqs.add(seq);
        }
        // warm-up evaluation of each, then reset the output
        for (Sequence s : seqs) s.eval();
        mgr.eval(new OpSyncDevice(out));

        int samples = 5;
        long[] heap = new long[samples];
        long[] rss = new long[samples];
        int every = Math.max(1, evaluations / (samples - 1));
        int k = 0;
        long t0 = System.nanoTime();
        for (int e = 0; e < evaluations; e++) {
            for (Sequence s : seqs) s.evalAsync();
            for (Sequence s : seqs) s.evalAwait();
            if (e % every == 0 && k < samples - 1) {
                heap[k] = HostMemory.usedHeapAfterGc();
                rss[k++] = HostMemory.residentBytes();
            }
            if (evaluationsDone != null && (e & 63) == 63) {
                evaluationsDone.accept(e + 1);   // every 64th: no clock reading per evaluation in the timed loop
            }
        }
        long t1 = System.nanoTime();
        heap[samples - 1] = HostMemory.usedHeapAfterGc();
        rss[samples - 1] = HostMemory.residentBytes();
        mgr.eval(new OpSyncLocal(out));
        long expected = (long) sequences * dispatches * evaluations;
        boolean ok = Arrays.stream(out.toIntArray()).allMatch(v -> Integer.toUnsignedLong(v) == expected);
        long total = (long) sequences * dispatches * evaluations;
        return new Result(mgr.deviceProperties().name(), total, (t1 - t0) / 1e3 / total, ok, heap, rss);
    }

    /**
     * Runs the loop ({@code [sequences dispatches evaluations elements]}) on the default device and prints its figures.
     */
    public static void main(String[] args) {
        int sequences = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int dispatches = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int evaluations = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
        int n = args.length > 3 ? Integer.parseInt(args[3]) : 102_400;
        try (Manager mgr = new Manager()) {
            Result r = run(mgr, sequences, dispatches, evaluations, n);
            System.out.printf("device: %s%n", r.device());
            System.out.printf("%d sequences x %d dispatches x %d evaluations = %,d dispatches of %,d elements%n",
                    sequences, dispatches, evaluations, r.dispatches(), n);
            System.out.printf("%.3f us per dispatch; output %s%n", r.microsPerDispatch(),
                    r.correct() ? "correct (every element = " + r.dispatches() + ")" : "WRONG");
            System.out.println("heap after GC (MiB): " + mib(r.heapSamples()));
            System.out.println("resident memory (MiB): " + mib(r.rssSamples()));
            if (!r.correct()) {
                System.exit(1);
            }
        }
    }

    private static String mib(long[] v) {
        return Arrays.toString(Arrays.stream(v).mapToObj(x -> String.format("%.1f", x / 1048576.0)).toArray());
    }
}
