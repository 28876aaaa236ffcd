package io.jkompute.internal;

import io.jkompute.WaitStrategy;

/**
 * How long a host wait for a timeline value polls the semaphore before it blocks in the driver, per
 * {@link WaitStrategy}. Blocking costs a thread wake-up; polling returns within a few µs of completion but burns a
 * core, so HYBRID polls about as long as the sequence's last evaluation took, within bounds.
 */
public final class WaitPolicy {
    /** HYBRID polls at least this long: shorter than a wake-up is never worth blocking for. */
    static final long MIN_SPIN_NANOS = 200_000;
    /** HYBRID polls at most this long: a long job should not burn a core. */
    static final long MAX_SPIN_NANOS = 2_000_000;
    /** {@link #spinNanos}' answer for "do not poll at all, block at once". */
    public static final long NO_SPIN = -1;

    private WaitPolicy() {
    }

    /**
     * How long to poll before blocking, in nanoseconds; {@link #NO_SPIN} to block at once. A polling wait checks the
     * semaphore at least once even when this is 0.
     *
     * @param timeoutNanos       the whole wait's limit ({@code Long.MAX_VALUE}: none)
     * @param lastDurationNanos  how long the sequence's previous evaluation took from submit to completion (0: none yet)
     * @param sinceSubmitNanos   how long ago the awaited submission was made
     */
    public static long spinNanos(WaitStrategy strategy, long timeoutNanos, long lastDurationNanos, long sinceSubmitNanos) {
        return switch (strategy) {
            case BLOCK -> NO_SPIN;
            case SPIN -> timeoutNanos;
            // a reused sequence tends to take as long as last time: spin through that (within bounds), not block and
            // pay a thread wake-up just before it completes
            case HYBRID -> Math.min(timeoutNanos, Math.clamp(lastDurationNanos + lastDurationNanos / 4 - sinceSubmitNanos,
                    MIN_SPIN_NANOS, MAX_SPIN_NANOS));
        };
    }
}
