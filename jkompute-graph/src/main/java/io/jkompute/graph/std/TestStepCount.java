package io.jkompute.graph.std;

import io.jkompute.graph.Codelet;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;

/**
 * GXF's test helper {@code nvidia::gxf::test::StepCount}, registered as {@code test::StepCount}: counts its entity's
 * starts and ticks and fails in {@code stop()} unless they are {@code expected_start_count} (1) and
 * {@code expected_count} (0). GXF's DLPack test apps put one in each broadcast entity. GXF checks at deinitialize;
 * {@code stop()} is the last call of a run here whose failure the graph reports, and no tick follows it.
 */
public final class TestStepCount extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public TestStepCount() {
    }

    private Parameter<Long> expectedStartCount;
    private Parameter<Long> expectedCount;
    private long starts;
    private long ticks;

    @Override
    protected void registerInterface(Registrar r) {
        // GXF's use_assert chooses between aborting the process and returning an error; both are a failure here
        r.parameter("use_assert", ParameterTypes.BOOL, "accepted for GXF's apps; a mismatch always fails the run",
                false);
        expectedStartCount = r.parameter("expected_start_count", ParameterTypes.UINT64, "starts expected", 1L);
        expectedCount = r.parameter("expected_count", ParameterTypes.UINT64, "ticks expected", 0L);
    }

    @Override
    protected void start() {
        starts++;
    }

    @Override
    protected void tick() {
        ticks++;
    }

    @Override
    protected void stop() {
        if (starts != expectedStartCount.get() || ticks != expectedCount.get()) {
            throw new IllegalStateException("ticked " + ticks + " times after " + starts + " start(s); expected "
                    + expectedCount.get() + " ticks after " + expectedStartCount.get());
        }
    }

    /** Ticks counted so far. */
    public long ticks() {
        return ticks;
    }
}
