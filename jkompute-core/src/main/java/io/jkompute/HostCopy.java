package io.jkompute;

import java.lang.foreign.MemorySegment;
import java.util.stream.LongStream;

/**
 * Copies between Java memory and mapped GPU memory. One thread moves about 7-10 GB/s into write-combined or PCIe-mapped
 * memory; on the H100 host a 1 GiB {@code setData(float[])} reached 0.13 of pinned cuMemcpy single-threaded and 0.45
 * with 16 threads. Large copies are therefore split over the common fork-join pool.
 */
final class HostCopy {
    static final long PARALLEL_BYTES = 16L << 20;
    private static final long CHUNK = 4L << 20;

    private HostCopy() {}

    static void copy(MemorySegment src, MemorySegment dst, long bytes) {
        if (bytes < PARALLEL_BYTES || Runtime.getRuntime().availableProcessors() < 2) {
            MemorySegment.copy(src, 0, dst, 0, bytes);
            return;
        }
        long chunks = (bytes + CHUNK - 1) / CHUNK;
        LongStream.range(0, chunks).parallel().forEach(c -> {
            long off = c * CHUNK;
            MemorySegment.copy(src, off, dst, off, Math.min(CHUNK, bytes - off));
        });
    }
}
