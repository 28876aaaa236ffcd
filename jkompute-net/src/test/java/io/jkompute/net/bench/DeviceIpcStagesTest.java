package io.jkompute.net.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The device row's STAGES line: the sender's pace, the receiver's and the delay between them, from tick times. */
class DeviceIpcStagesTest {
    // messages 2..5 of a run timed from message 2 (index = message number; 0 and 1 are before the window)
    private static final long[] SENT = {0, 0, 1_000, 3_000, 6_000, 10_000};
    private static final long[] TICK = {0, 0, 1_500, 4_000, 6_500, 12_000};

    @Test
    void percentilesOfDelayAndOfBothSidesGaps() {
        // delays 0.5, 1, 0.5, 2 µs; sender gaps 2, 3, 4 µs; receiver gaps 2.5, 2.5, 5.5 µs
        assertEquals("STAGES (us p50/p90/p99) sender tick to receiver tick 1.0/2.0/2.0, between sender ticks "
                + "3.0/4.0/4.0, between receiver ticks 2.5/5.5/5.5", DeviceIpc.stagesOf(SENT, TICK, 2, 5));
    }

    @Test
    void noLineWithoutTheSendersTimesOrForAWindowOfUnderThreeMessages() {
        long[] unsent = SENT.clone();
        unsent[4] = 0; // a sender that carries no times (a forged-reference source, an older build)
        assertNull(DeviceIpc.stagesOf(unsent, TICK, 2, 5));
        assertNull(DeviceIpc.stagesOf(SENT, TICK, 2, 3));
    }
}
