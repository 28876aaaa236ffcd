package io.jkompute.graph;

/** Why a graph run ended. */
public enum StopReason {
    /** Every entity was done (its terms said NEVER). */
    COMPLETED,
    /** Entities were left, all waiting with nothing (time, event) to wake them; the report says for what. */
    DEADLOCK,
    /** The scheduler's {@code max_duration_ms} elapsed. */
    MAX_DURATION,
    /** {@link Graph#interrupt()} was called. */
    INTERRUPTED,
    /** A codelet, queue or term failed; {@link Graph#await()} throws. */
    ERROR
}
