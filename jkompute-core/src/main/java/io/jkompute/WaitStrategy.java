package io.jkompute;

/**
 * How {@link Sequence#evalAwait} waits for the GPU. Blocking in the driver costs a thread wake-up (~30-45 µs on the
 * NVIDIA H200 measured for this project); spinning on the semaphore's counter returns within a few µs of completion
 * but burns a core.
 */
public enum WaitStrategy {
    /** Block in {@code vkWaitSemaphores} at once. */
    BLOCK,
    /** Poll the semaphore until done (or the timeout passes). */
    SPIN,
    /**
     * Poll for a while, then block: short jobs return fast, long ones do not burn a core. The polling lasts 0.2 ms, or
     * a quarter longer than the sequence's previous evaluation took, up to 2 ms. The default: in the project's H100
     * runs it matched SPIN at the median and had the shorter tail.
     */
    HYBRID
}
