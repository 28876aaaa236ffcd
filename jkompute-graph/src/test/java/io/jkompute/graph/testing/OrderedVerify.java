package io.jkompute.graph.testing;

import io.jkompute.graph.std.StreamGenerator;
import io.jkompute.graph.std.VerifyEqual;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * VerifyEqual that also requires frames 1, 2, 3, ... in order, each holding 2x + 1 of StreamGenerator's frame of the
 * same number (so a frame compared against another frame's reference, or skipped, or repeated, fails).
 */
public class OrderedVerify extends VerifyEqual {
    public long lastFrame;

    @Override
    protected void verifiedFrame(long frame, MemorySegment bytes) {
        if (frame != lastFrame + 1) {
            throw new AssertionError("frame " + frame + " verified after frame " + lastFrame);
        }
        for (int r = 0; r < StreamGenerator.ROWS; r++) {
            float expected = 2 * StreamGenerator.value(frame, r) + 1;
            float got = bytes.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, r);
            if (got != expected) {
                throw new AssertionError("frame " + frame + " row " + r + ": " + got + ", expected " + expected);
            }
        }
        lastFrame = frame;
    }
}
