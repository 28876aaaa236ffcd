package io.jkompute.graph;

/** What a scheduling term says: a type and, for WAIT_TIME and READY, a target timestamp in clock nanoseconds. */
public record SchedulingCondition(SchedulingConditionType type, long targetTimestamp) {
    public static final SchedulingCondition READY_NOW = new SchedulingCondition(SchedulingConditionType.READY, Long.MIN_VALUE);
    public static final SchedulingCondition WAIT = new SchedulingCondition(SchedulingConditionType.WAIT, 0);
    public static final SchedulingCondition WAIT_EVENT = new SchedulingCondition(SchedulingConditionType.WAIT_EVENT, 0);
    public static final SchedulingCondition NEVER = new SchedulingCondition(SchedulingConditionType.NEVER, 0);

    /** READY as of {@code timestamp} (ns). */
    public static SchedulingCondition ready(long timestamp) {
        return new SchedulingCondition(SchedulingConditionType.READY, timestamp);
    }

    /** WAIT_TIME until {@code target} (ns). */
    public static SchedulingCondition waitTime(long target) {
        return new SchedulingCondition(SchedulingConditionType.WAIT_TIME, target);
    }

    /**
     * AND-combination: NEVER beats everything, then WAIT_EVENT, then WAIT, then WAIT_TIME (two WAIT_TIMEs → the
     * later target), then READY (two READYs → the later timestamp).
     */
    public SchedulingCondition and(SchedulingCondition other) {
        int a = type.andRank();
        int b = other.type.andRank();
        if (a != b) {
            return a > b ? this : other;
        }
        if (type == SchedulingConditionType.WAIT_TIME || type == SchedulingConditionType.READY) {
            return targetTimestamp >= other.targetTimestamp ? this : other;
        }
        return this;
    }

    /**
     * OR-combination (OrSchedulingTermCombiner): NEVER still dominates, then any READY wins, then WAIT_EVENT,
     * then WAIT_TIME (the later target, as GXF does), else WAIT.
     */
    public SchedulingCondition or(SchedulingCondition other) {
        if (type == SchedulingConditionType.NEVER || other.type == SchedulingConditionType.NEVER) {
            return NEVER;
        }
        if (type == SchedulingConditionType.READY || other.type == SchedulingConditionType.READY) {
            return type == SchedulingConditionType.READY ? this : other;
        }
        if (type == SchedulingConditionType.WAIT_EVENT || other.type == SchedulingConditionType.WAIT_EVENT) {
            return WAIT_EVENT;
        }
        if (type == SchedulingConditionType.WAIT_TIME && other.type == SchedulingConditionType.WAIT_TIME) {
            return targetTimestamp >= other.targetTimestamp ? this : other;
        }
        if (type == SchedulingConditionType.WAIT_TIME) {
            return this;
        }
        if (other.type == SchedulingConditionType.WAIT_TIME) {
            return other;
        }
        return WAIT;
    }

    @Override
    public String toString() {
        return type == SchedulingConditionType.WAIT_TIME ? "WAIT_TIME(" + targetTimestamp + " ns)" : type.name();
    }
}
