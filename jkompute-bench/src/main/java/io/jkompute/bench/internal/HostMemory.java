package io.jkompute.bench.internal;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** The process's heap after a GC and its resident set, for runs that must keep both flat. */
public final class HostMemory {
    private HostMemory() {}

    public static long usedHeapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * Heap memory the JVM has committed (taken from the OS): the part of the resident set that is Java heap. It grows
     * while the collector widens the young generation under a high allocation rate, which is not a leak; resident
     * minus committed heap is what native memory (driver, staging, code) holds.
     */
    public static long committedHeap() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
    }

    /** VmRSS from /proc/self/status, or -1 where there is none (not Linux). */
    public static long residentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
