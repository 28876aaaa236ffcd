package io.jkompute.net;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Copies of large messages into and out of a same-host link's shared slots, split over a few threads: one core's
 * memcpy moves roughly 5–12 GB/s, and the same-host path does one copy on each side, so one thread per side would
 * cap the link below what the memory system moves. Pieces are 4 MiB; copies under 8 MiB (or of memory that only the
 * calling thread may read) stay on the calling thread.
 */
final class SharedCopy {
    private static final long PIECE = 4L << 20;
    private static final int THREADS = Math.max(1, Math.min(Integer.getInteger("jkompute.net.copyThreads", 4),
            Runtime.getRuntime().availableProcessors()));
    private static volatile ExecutorService pool;
    private static volatile Thread sample;

    private SharedCopy() {
    }

    private static ExecutorService pool() {
        ExecutorService p = pool;
        if (p == null) {
            synchronized (SharedCopy.class) {
                if (pool == null) {
                    java.util.concurrent.ThreadPoolExecutor threads = (java.util.concurrent.ThreadPoolExecutor)
                            Executors.newFixedThreadPool(THREADS, r -> {
                                Thread t = new Thread(r, "jkompute-net-copy");
                                t.setDaemon(true);
                                sample = t;
                                return t;
                            });
                    // the threads exist before the first copy asks whether they may read its memory: until one
                    // existed, every copy stayed on the calling thread
                    threads.prestartAllCoreThreads();
                    pool = threads;
                }
                p = pool;
            }
        }
        return p;
    }

    /** Copies {@code n} bytes from {@code src} at {@code from} to {@code dst} at {@code to}. */
    static void copy(MemorySegment src, long from, MemorySegment dst, long to, long n) {
        if (n < 2 * PIECE || THREADS == 1) {
            MemorySegment.copy(src, from, dst, to, n);
            return;
        }
        ExecutorService p = pool();
        Thread t = sample;
        if (t == null || !src.isAccessibleBy(t) || !dst.isAccessibleBy(t)) {
            MemorySegment.copy(src, from, dst, to, n); // confined memory: only this thread may touch it
            return;
        }
        long pieces = (n + PIECE - 1) / PIECE;
        long per = (pieces + THREADS) / (THREADS + 1) * PIECE; // the calling thread takes a share too
        List<Future<?>> jobs = new ArrayList<>();
        long at = per;
        while (at < n) {
            long a = at;
            long len = Math.min(per, n - a);
            jobs.add(p.submit(() -> MemorySegment.copy(src, from + a, dst, to + a, len)));
            at += per;
        }
        RuntimeException failed = null;
        try {
            MemorySegment.copy(src, from, dst, to, Math.min(per, n));
        } catch (RuntimeException e) {
            failed = e;
        }
        boolean interrupted = false;
        for (Future<?> f : jobs) {
            while (true) {
                try {
                    f.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the pieces still write into memory the caller owns: wait them out
                } catch (java.util.concurrent.ExecutionException e) {
                    if (failed == null) {
                        failed = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                    }
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failed != null) {
            throw failed;
        }
    }
}
