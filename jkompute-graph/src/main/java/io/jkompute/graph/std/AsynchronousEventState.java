package io.jkompute.graph.std;

/** States of an {@link AsynchronousSchedulingTerm}, set by the codelet or other threads. */
public enum AsynchronousEventState {
    /** READY. */
    READY,
    /** WAIT: polled again later. */
    WAIT,
    /** WAIT_EVENT: the scheduler stops polling until EVENT_DONE. */
    EVENT_WAITING,
    /** READY, and the scheduler is notified. */
    EVENT_DONE,
    /** NEVER. */
    EVENT_NEVER
}
