package io.jkompute.graph.cuda;

import io.jkompute.cuda.Event;
import io.jkompute.cuda.Stream;
import java.util.Objects;

/**
 * GXF's {@code CudaEvent} message component: a CUDA event recorded on a stream, so a consumer can wait for the
 * producer's work up to that point (on the host with {@link #synchronize()}, or on its own stream with
 * {@code stream.waitFor(event.event())}) without waiting for later work on the same stream. The message owns it: the
 * event is destroyed when the last holder of the message releases it.
 */
public final class CudaEvent implements AutoCloseable {
    private final Event event;

    private CudaEvent(Event event) {
        this.event = event;
    }

    /** A new event (no timing, as GXF's {@code cudaEventDisableTiming}) recorded on {@code stream} now. */
    public static CudaEvent record(Stream stream) {
        Objects.requireNonNull(stream, "stream");
        Event e = CudaMemory.onDevice(stream.device(), () -> Event.create(false, false));
        try {
            e.record(stream);
        } catch (RuntimeException ex) {
            e.close();
            throw ex;
        }
        return new CudaEvent(e);
    }

    /** The jkompute-cuda event. */
    public Event event() {
        return event;
    }

    /** The native {@code CUevent} handle. */
    public long handle() {
        return event.handle();
    }

    /** Waits on the host until the work recorded before the event has run. */
    public void synchronize() {
        event.synchronize();
    }

    /** Whether the work recorded before the event has run. */
    public boolean query() {
        return event.query();
    }

    @Override
    public void close() {
        event.close();
    }

    @Override
    public String toString() {
        return "CudaEvent(0x" + Long.toHexString(handle()) + ")";
    }
}
