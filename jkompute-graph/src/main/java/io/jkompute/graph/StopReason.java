package io.jkompute.graph;

/** Why a graph run ended. */
public enum StopReason {
    /**
     * The work is done: every entity finished (its terms said NEVER), or the sources finished and the entities left
     * wait for messages with every queue empty (see {@link ExecutionContext#workDone}).
     */
    COMPLETED,
    /**
     * Work was left undone (a source still waiting, or messages queued) and every entity waited with nothing (time,
     * event) to wake it; the detail names the waiting entities and what each waits for.
     */
    DEADLOCK,
    /** The scheduler's {@code max_duration_ms} elapsed. */
    MAX_DURATION,
    /** {@link Graph#interrupt()} was called. */
    INTERRUPTED,
    /** A codelet, queue or term failed; {@link Graph#await()} throws. */
    ERROR
}
