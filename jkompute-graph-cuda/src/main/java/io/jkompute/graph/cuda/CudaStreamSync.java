package io.jkompute.graph.cuda;

import io.jkompute.graph.Codelet;
import io.jkompute.graph.Message;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.Transmitter;

/**
 * GXF's {@code nvidia::gxf::CudaStreamSync}: each tick takes one message from {@code rx}, waits until the work queued
 * on every {@link CudaStreamId} stream in it has finished, and publishes the message on {@code tx} (optional; without
 * it the message is dropped after the wait). Downstream codelets then read the message's CUDA tensors from the host
 * without synchronising themselves.
 */
public final class CudaStreamSync extends Codelet {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public CudaStreamSync() {
    }

    private Parameter<Receiver> rx;
    private Parameter<Transmitter> tx;
    private long synced;

    @Override
    protected void registerInterface(Registrar r) {
        rx = r.handle("rx", Receiver.class, "the receiver of messages to synchronise");
        tx = r.optionalHandle("tx", Transmitter.class, "the transmitter to forward them on");
    }

    @Override
    protected void tick() {
        Message m = rx.get().receive();
        if (m == null) {
            throw new IllegalStateException("no message in '" + rx.get().path() + "' to synchronise");
        }
        for (CudaStreamId id : m.findAll(CudaStreamId.class)) {
            id.stream().synchronize();
            synced++;
        }
        if (tx.isSet()) {
            tx.get().publish(m);
        }
    }

    /** Streams synchronised so far. */
    public long synchronizedStreams() {
        return synced;
    }
}
