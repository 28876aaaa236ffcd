package io.jkompute.python.internal;

import java.lang.foreign.MemorySegment;

/**
 * One Python codelet class and, once started, its instance with its bound start/tick/stop methods, each call made
 * under the GIL by the calling thread. A Python exception surfaces as {@link PyFailure}; a Java exception raised in a
 * gxf call and not handled by the codelet surfaces as itself.
 */
public final class PyCodelet implements AutoCloseable {
    private final Interpreter py;
    private MemorySegment cls;
    private MemorySegment instance;
    private MemorySegment tick;
    private MemorySegment stop;

    private PyCodelet(Interpreter py, MemorySegment cls) {
        this.py = py;
        this.cls = cls;
    }

    /** Imports the codelet's module ("None": __main__) and finds the class, as GXF does. */
    public static PyCodelet load(String path, String className) {
        Interpreter py = Interpreter.get();
        py.enter();
        try {
            MemorySegment loader = py.engineAttr("load_class");
            try {
                return new PyCodelet(py, py.call(loader, path, className));
            } finally {
                py.decref(loader);
            }
        } finally {
            py.exit();
        }
    }

    /** Instantiates the class, hands it the bridge (set_bridge) and calls start(). */
    public void start(PyCodeletBridge bridge) {
        py.enter();
        try {
            dropInstance();
            MemorySegment create = py.engineAttr("new_codelet");
            long h = Handles.put(bridge);
            try {
                instance = py.call(create, cls, h);
            } catch (RuntimeException e) {
                Handles.release(h);
                throw e;
            } finally {
                py.decref(create);
            }
            tick = py.attr(instance, "tick");
            stop = py.attr(instance, "stop");
            MemorySegment start = py.attr(instance, "start");
            try {
                py.decref(py.callNoArgs(start));
            } finally {
                py.decref(start);
            }
        } finally {
            py.exit();
        }
    }

    public void tick() {
        py.enter();
        try {
            MemorySegment r = py.callNoArgs(tick);
            if (!py.isNone(r)) {
                // a tick returns None: the usual result needs no call to drop it
                py.decref(r);
            }
        } finally {
            py.exit();
        }
    }

    public void stop() {
        if (stop == null) {
            return;
        }
        py.enter();
        try {
            py.decref(py.callNoArgs(stop));
        } finally {
            py.exit();
        }
    }

    /** Drops the instance and the class (the instance's wrappers give their handles back as they die). */
    @Override
    public void close() {
        py.enter();
        try {
            dropInstance();
            py.decref(cls);
            cls = null;
        } finally {
            py.exit();
        }
    }

    private void dropInstance() {
        py.decref(tick);
        py.decref(stop);
        py.decref(instance);
        tick = null;
        stop = null;
        instance = null;
    }
}
