package io.jkompute.python.internal;

import java.lang.foreign.MemorySegment;

/**
 * A Python object carried in a message (GXF's PyData, CudaStreamId): one reference, given back when the message is
 * released. The thread releasing it may not hold the GIL, so the reference is dropped by the next thread that enters
 * Python.
 */
final class PyObjectRef implements AutoCloseable {
    private final Interpreter interpreter;
    private MemorySegment object;

    PyObjectRef(Interpreter interpreter, MemorySegment object) {
        this.interpreter = interpreter;
        this.object = object;
    }

    /** The object (borrowed: valid while the message holds this). */
    MemorySegment object() {
        if (object == null) {
            throw new IllegalStateException("Python object already released with its message");
        }
        return object;
    }

    @Override
    public synchronized void close() {
        if (object != null) {
            interpreter.decrefLater(object);
            object = null;
        }
    }

    @Override
    public String toString() {
        return "PyData";
    }
}
