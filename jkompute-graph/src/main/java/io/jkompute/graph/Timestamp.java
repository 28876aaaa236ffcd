package io.jkompute.graph;

/** GXF's Timestamp component: acquisition time (sensor) and publish time, both in clock nanoseconds. */
public record Timestamp(long pubtime, long acqtime) {
    /** The name publish() gives it inside a message. */
    public static final String NAME = "timestamp";
}
