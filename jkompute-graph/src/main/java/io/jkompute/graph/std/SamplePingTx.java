package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Codelet;
import io.jkompute.graph.Message;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.Transmitter;

/**
 * GXF's sample {@code nvidia::gxf::PingTx}, registered as {@code PingTx}: each tick publishes an empty message on
 * {@code signal}, its acqtime the time of the optional {@code clock} or 0 without one, as GXF's C++ codelet does. Apps
 * written for GXF that pair it with Python codelets load unchanged.
 */
public final class SamplePingTx extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public SamplePingTx() {
    }

    private Parameter<Transmitter> signal;
    private Parameter<Clock> clock;

    @Override
    protected void registerInterface(Registrar r) {
        signal = r.handle("signal", Transmitter.class, "the transmitter publishing the messages");
        clock = r.optionalHandle("clock", Clock.class, "the clock that timestamps them (else acqtime 0)");
    }

    @Override
    protected void tick() {
        signal.get().publish(Message.create(), clock.isSet() ? clock.get().timestamp() : 0);
    }
}
