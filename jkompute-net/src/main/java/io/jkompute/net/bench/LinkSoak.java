package io.jkompute.net.bench;

import io.jkompute.graph.Graph;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import io.jkompute.net.AeronTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Create/use/close cycles of linked graphs in one JVM: each cycle loads the shipped ping apps
 * ({@code apps/distributed/ping-rx.yaml} and {@code ping-tx.yaml}) on a port of its own, runs 50 messages over the
 * link, checks that both ended COMPLETED (the receiver's StepCount checks every message arrived) and closes both; the
 * media driver stays up for the whole soak. A tenth of the way each time it prints the live threads, open file
 * descriptors, heap after a GC and the process's resident memory, which must stay flat: a link's threads,
 * subscriptions, publications, pollers and receive buffers are all given back when its graph closes.
 *
 * <pre>
 * java … io.jkompute.net.bench.LinkSoak [CYCLES (3000)] [APPS_DIR (apps)]
 * </pre>
 */
public final class LinkSoak {
    private LinkSoak() {
    }

    /** Runs the soak; exits 1 at the first cycle that does not complete. */
    public static void main(String[] args) {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        Path apps = Path.of(args.length > 1 ? args[1] : "apps", "distributed");
        AeronTransport driver = AeronTransport.acquire();
        long t0 = System.nanoTime();
        try {
            for (int c = 1; c <= cycles; c++) {
                int port = 20_000 + c % 20_000;
                try (Graph rx = Graph.loader().file(apps.resolve("ping-rx.yaml")).param("rx/signal/port=" + port)
                        .param("rx/count/count=50").param("rx/steps/codelet_params={expected_count: 50}").load();
                     Graph tx = Graph.loader().file(apps.resolve("ping-tx.yaml")).param("tx/signal/port=" + port)
                             .param("tx/count/count=50").load()) {
                    rx.runAsync();
                    tx.runAsync();
                    RunResult sent = tx.await();
                    RunResult received = rx.await();
                    if (sent.reason() != StopReason.COMPLETED || received.reason() != StopReason.COMPLETED) {
                        System.out.println("cycle " + c + " FAILED: sender " + sent + ", receiver " + received);
                        System.exit(1);
                    }
                }
                if (c % Math.max(1, cycles / 10) == 0) {
                    System.gc();
                    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                    System.out.printf(Locale.ROOT, "cycle %d: %d threads, %d open files, heap %d KiB, resident %d KiB, "
                            + "%.1f s%n", c, Thread.activeCount(), openFiles(), heap / 1024, residentKib(),
                            (System.nanoTime() - t0) / 1e9);
                }
            }
        } finally {
            driver.release();
        }
        System.out.println("link soak: " + cycles + " cycles completed");
    }

    /** VmRSS of /proc/self/status: native memory a link does not give back shows here, not in the heap. */
    private static long residentKib() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).findFirst().orElse(-1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long openFiles() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
