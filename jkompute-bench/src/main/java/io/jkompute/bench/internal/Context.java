package io.jkompute.bench.internal;

import io.jkompute.Manager;
import io.jkompute.bench.BenchOptions;
import io.jkompute.bench.Progress;
import java.util.SplittableRandom;

/**
 * What every suite shares: the jkompute Manager, the raw baselines (opened on first use; raw CUDA may be absent), the
 * options, a random source seeded afresh each run, and the progress counter.
 */
public final class Context implements AutoCloseable {
    private final Manager manager;
    private final BenchOptions options;
    private final SplittableRandom random = new SplittableRandom();
    private final Progress progress;
    private RawVulkan vulkan;
    private RawVulkan vulkanDeviceAddress;
    private String deviceAddressMissing;
    private RawCuda cuda;
    private String cudaMissing;
    private boolean cudaTried;
    private String suite = "";
    private int done;
    private int total;

    public Context(Manager manager, BenchOptions options, Progress progress) {
        this.manager = manager;
        this.options = options;
        this.progress = progress;
    }

    public Manager manager() {
        return manager;
    }

    public BenchOptions options() {
        return options;
    }

    public boolean quick() {
        return options.quick();
    }

    /** GPU-timed samples per submission (size sweeps). */
    int reps() {
        return quick() ? 3 : 10;
    }

    /** Submissions per GPU-timed measurement (size sweeps). */
    int rounds() {
        return quick() ? 2 : 5;
    }

    long seed() {
        return random.nextLong();
    }

    float nextFloat(float lo, float hi) {
        return lo + (float) random.nextDouble() * (hi - lo);
    }

    /** The raw Vulkan baseline, made on first use. */
    RawVulkan vulkan() {
        if (vulkan == null) {
            vulkan = new RawVulkan(4096);
        }
        return vulkan;
    }

    /**
     * A second raw Vulkan device with {@code bufferDeviceAddress} enabled (for the copy-path probe), or null when the
     * device lacks it ({@link #deviceAddressMissing()} says why).
     */
    RawVulkan vulkanDeviceAddress() {
        if (vulkanDeviceAddress == null && deviceAddressMissing == null) {
            try {
                vulkanDeviceAddress = new RawVulkan(4096, -1, true);
            } catch (RuntimeException e) {
                deviceAddressMissing = e.getMessage();
            }
        }
        return vulkanDeviceAddress;
    }

    String deviceAddressMissing() {
        return deviceAddressMissing;
    }

    /** The raw CUDA baseline, or null when there is no usable CUDA driver ({@link #cudaMissing()} says why). */
    public RawCuda cuda() {
        if (!cudaTried) {
            cudaTried = true;
            String[] why = new String[1];
            cuda = RawCuda.openOrNull(why);
            cudaMissing = why[0];
        }
        return cuda;
    }

    public String cudaMissing() {
        cuda();
        return cudaMissing;
    }

    public void begin(String suiteName, int plannedTotal) {
        this.suite = suiteName;
        this.total = plannedTotal;
    }

    void step(String label) {
        unwindIfStopping();
        done = Math.min(done + 1, total);
        progress.step(suite, label, done, total);
    }

    /**
     * Throws once jkompute is stopping: a clean point to unwind at, since jkompute's own submissions are refused only
     * once the stop's actions are done.
     */
    private static void unwindIfStopping() {
        if (io.jkompute.Shutdown.isStopping()) {
            throw new IllegalStateException("jkompute is stopping (the JVM is exiting): the benchmark stopped");
        }
    }

    /**
     * A counter for a long step: called with the units done, it tells the progress at most every 500 ms (the clock
     * is read only when called), and unwinds the step as {@link #step} does once jkompute is stopping: a stop does
     * not wait for the rest of a long loop.
     */
    public java.util.function.LongConsumer within(String label, long total, String unit) {
        long[] last = {System.nanoTime()};
        return doneUnits -> {
            unwindIfStopping();
            long now = System.nanoTime();
            if (now - last[0] >= 500_000_000L || doneUnits >= total) {
                last[0] = now;
                progress.within(suite, label, doneUnits, total, unit);
            }
        };
    }

    /** Fills the progress bar up to the end of the current suite (after a skip or failure). */
    public void stepsTo(int target) {
        while (done < Math.min(target, total)) {
            step("");
        }
    }

    public int done() {
        return done;
    }

    @Override
    public void close() {
        if (vulkan != null) vulkan.close();
        if (vulkanDeviceAddress != null) vulkanDeviceAddress.close();
        if (cuda != null) cuda.close();
    }
}
