package io.jkompute.examples;

import io.jkompute.Manager;
import io.jkompute.OpMult;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * Makes and closes many Managers, each with a tensor and an evaluation, then lists the devices many times, all in one
 * JVM: what a service that makes a Manager per job does. Prints every 1000 cycles the iteration, heap used after GC,
 * resident memory (VmRSS), open file descriptors and where a cycle's time went (mean milliseconds for making the
 * Manager, making the tensors and the algorithm, evaluating, closing), and exits non-zero on the first failure.
 *
 * <pre>java -cp ... io.jkompute.examples.ManagerSoak [cycles=10000] [listCalls=1000]</pre>
 */
public final class ManagerSoak {
    private ManagerSoak() {}

    /** Nanoseconds spent per phase of a cycle since the last report: new Manager, tensors + algorithm, eval, close. */
    private static final long[] PHASE_NANOS = new long[4];
    private static final String[] PHASES = {"create", "tensors", "eval", "close"};
    private static int cyclesSinceReport;

    /** Runs the soak: {@code [cycles=10000] [listCalls=1000]}; exits non-zero on the first failure. */
    public static void main(String[] args) {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int listCalls = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        String phase = "managers";
        int i = 0;
        try {
            report(phase, 0);
            for (i = 1; i <= cycles; i++) {
                cycle(i);
                if (i % 1000 == 0 || i == cycles) {
                    report(phase, i);
                }
            }
            phase = "listDevices";
            for (i = 1; i <= listCalls; i++) {
                if (Manager.listDevices().isEmpty()) {
                    throw new IllegalStateException("listDevices() returned no device");
                }
                if (i % 1000 == 0 || i == listCalls) {
                    report(phase, i);
                }
            }
        } catch (RuntimeException | Error e) {
            System.out.println("FAILED in " + phase + " at iteration " + i + ": " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
        System.out.println("OK: " + cycles + " Manager cycles and " + listCalls + " listDevices() calls");
    }

    /** One Manager: a tensor product on the GPU, checked, then close. */
    private static void cycle(int i) {
        long t0 = System.nanoTime();
        Manager mgr = new Manager();
        long t1 = System.nanoTime();
        long t2;
        long t3;
        try {
            Tensor a = mgr.tensor(new float[] {1, 2, i});
            Tensor b = mgr.tensor(new float[] {4, 5, 6});
            Tensor out = mgr.tensor(new float[3]);
            OpMult mult = new OpMult(a, b, out, mgr.algorithm());
            t2 = System.nanoTime();
            mgr.eval(new OpSyncDevice(a, b), mult, new OpSyncLocal(out));
            t3 = System.nanoTime();
            float[] want = {4, 10, 6f * i};
            if (!Arrays.equals(out.toFloatArray(), want)) {
                throw new IllegalStateException("cycle " + i + ": got " + Arrays.toString(out.toFloatArray())
                        + ", expected " + Arrays.toString(want));
            }
        } finally {
            mgr.close();
        }
        long t4 = System.nanoTime();
        PHASE_NANOS[0] += t1 - t0;
        PHASE_NANOS[1] += t2 - t1;
        PHASE_NANOS[2] += t3 - t2;
        PHASE_NANOS[3] += t4 - t3;
        cyclesSinceReport++;
    }

    private static void report(String phase, int i) {
        StringBuilder times = new StringBuilder();
        if (cyclesSinceReport > 0) {
            times.append(", ms per cycle:");
            for (int k = 0; k < PHASES.length; k++) {
                times.append(String.format(" %s %.2f", PHASES[k], PHASE_NANOS[k] / 1e6 / cyclesSinceReport));
                PHASE_NANOS[k] = 0;
            }
            cyclesSinceReport = 0;
        }
        System.out.printf("%s %d: heap %d KiB after GC, VmRSS %d KiB, %d open fds%s%n", phase, i,
                heapAfterGc() / 1024, residentKib(), openFds(), times);
    }

    /** Heap in use after a full GC, in bytes. */
    public static long heapAfterGc() {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        return rt.totalMemory() - rt.freeMemory();
    }

    /** Resident memory from /proc/self/status, in KiB (-1 where there is no /proc). */
    public static long residentKib() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
            return lines.filter(l -> l.startsWith("VmRSS:")).findFirst()
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).orElse(-1L);
        } catch (IOException e) {
            return -1;
        }
    }

    /** Open file descriptors of this process (-1 where there is no /proc). */
    public static long openFds() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            return -1;
        }
    }
}
