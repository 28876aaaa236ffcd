package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import io.jkompute.internal.WaitPolicy;
import org.junit.jupiter.api.Test;

/** How long each {@link WaitStrategy} polls before blocking: exact values at and between the bounds. */
class WaitPolicyTest {
    static final long NONE = Long.MAX_VALUE;

    @Test
    void blockNeverPolls() {
        assertEquals(WaitPolicy.NO_SPIN, WaitPolicy.spinNanos(WaitStrategy.BLOCK, NONE, 5_000_000, 0));
        assertEquals(WaitPolicy.NO_SPIN, WaitPolicy.spinNanos(WaitStrategy.BLOCK, 0, 0, 0));
    }

    @Test
    void spinPollsForTheWholeTimeout() {
        assertEquals(NONE, WaitPolicy.spinNanos(WaitStrategy.SPIN, NONE, 0, 0));
        assertEquals(7_000, WaitPolicy.spinNanos(WaitStrategy.SPIN, 7_000, 9_000_000, 0));
        assertEquals(0, WaitPolicy.spinNanos(WaitStrategy.SPIN, 0, 0, 0));
    }

    @Test
    void hybridPollsAQuarterLongerThanLastTimeWithinBounds() {
        // no history: the 0.2 ms floor
        assertEquals(200_000, WaitPolicy.spinNanos(WaitStrategy.HYBRID, NONE, 0, 0));
        // 1 ms last time, submitted 0.1 ms ago: 1.25 ms - 0.1 ms
        assertEquals(1_150_000, WaitPolicy.spinNanos(WaitStrategy.HYBRID, NONE, 1_000_000, 100_000));
        // long jobs: the 2 ms ceiling
        assertEquals(2_000_000, WaitPolicy.spinNanos(WaitStrategy.HYBRID, NONE, 10_000_000, 0));
        // submitted long ago: back to the floor, never negative
        assertEquals(200_000, WaitPolicy.spinNanos(WaitStrategy.HYBRID, NONE, 1_000_000, 50_000_000));
        // never past the caller's timeout
        assertEquals(50_000, WaitPolicy.spinNanos(WaitStrategy.HYBRID, 50_000, 1_000_000, 0));
        assertEquals(0, WaitPolicy.spinNanos(WaitStrategy.HYBRID, 0, 1_000_000, 0));
    }
}
