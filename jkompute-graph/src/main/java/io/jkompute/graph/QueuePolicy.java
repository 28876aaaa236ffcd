package io.jkompute.graph;

/** What a full queue does with one more message (GXF codes 0, 1, 2). */
public enum QueuePolicy {
    /** 0: drop the oldest message to make room. */
    POP,
    /** 1: drop the new message. */
    REJECT,
    /** 2: fail: the graph stops with a clear error (the default). */
    FAULT
}
