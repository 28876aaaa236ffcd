package io.jkompute.graph.std;

import io.jkompute.graph.CodeletAdapter;

/**
 * Counts the ticks of its entity; {@code stop()} fails unless it ticked {@code expected_count} times. Put it as a
 * second codelet in an entity to check how often the entity ticked.
 */
public class StepCount extends CodeletAdapter {
    /**
     * Creates the codelet with its parameters at their defaults; a {@code JavaCodelet} instantiates it and sets them
     * from the app.
     */
    public StepCount() {
    }

    private long expected;
    private long count;

    @Override
    public void start() {
        expected = longParam("expected_count");
        count = 0;
    }

    @Override
    public void tick() {
        count++;
    }

    @Override
    public void stop() {
        if (count != expected) {
            throw new IllegalStateException("Codelet didn't tick expected number of times! expected " + expected
                    + ", ticked " + count);
        }
    }

    /** The ticks counted so far in this run. */
    public long count() {
        return count;
    }
}
