package io.jkompute.python.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's one CPython interpreter, embedded through FFM.
 *
 * <p>GIL discipline: after start-up the GIL is released ({@code PyEval_SaveThread}); a Java thread takes it only
 * around Python code ({@link #enter()} / {@link #exit()}), and keeps the Python calls it makes in between (a
 * codelet's publish/receive) under it, as they are short. Each Java thread gets its own {@code PyThreadState} once
 * ({@code PyThreadState_New}) and switches with {@code PyEval_RestoreThread}/{@code PyEval_SaveThread}: creating a
 * thread state per call ({@code PyGILState_Ensure} from a thread without one) costs 6-10 µs, switching ~0.1 µs.
 * Thread states of threads that have ended are kept (see {@link #newThread()}).
 *
 * <p>Exit: the interpreter is never finalised. {@code Py_Finalize} must run on the thread that initialised Python
 * with no other thread inside Python; at JVM exit (a shutdown hook, Ctrl-C) neither is guaranteed, and a finalize
 * racing a scheduler worker crashes the process. So Python's {@code atexit} handlers do not run; stdout and stderr
 * are line-buffered so nothing printed is lost. Python installs no signal handlers ({@code Py_InitializeEx(0)}), so
 * Ctrl-C stays the JVM's.
 */
public final class Interpreter {
    private static final Logger LOG = LoggerFactory.getLogger(Interpreter.class);
    private static final String ENGINE_MODULE = "_jkompute_engine";

    private static volatile Interpreter instance;
    private static PythonUnavailableException failure;

    private final PythonInstall install;
    private final MemorySegment interp;
    private final ThreadLocal<PyThread> threads = new ThreadLocal<>();
    private static final java.util.concurrent.atomic.AtomicLong threadStates = new java.util.concurrent.atomic.AtomicLong();
    /** PyObject references dropped by Java threads that do not hold the GIL; decref'd by the next thread in. */
    private final ConcurrentLinkedQueue<MemorySegment> pendingDecrefs = new ConcurrentLinkedQueue<>();
    private final MemorySegment none;
    /** Python strs of fixed labels, kept for the interpreter's life (see {@link #label}). */
    private final ConcurrentHashMap<String, MemorySegment> labels = new ConcurrentHashMap<>();
    private static final int ARGUMENT_STRS = 4096;
    /** Decoded strs by address, each str held (see {@link #argumentString}). */
    private final ConcurrentHashMap<Long, String> argumentStrs = new ConcurrentHashMap<>();
    private MemorySegment engine;
    private MemorySegment describe;
    private MemorySegment javaErrorType;

    /** A Java thread's Python thread state and how deep it is in nested Python calls. */
    static final class PyThread {
        final Thread thread;
        final MemorySegment state;
        final MemorySegment scratch = Arena.ofAuto().allocate(64, 8);
        MemorySegment text = Arena.ofAuto().allocate(256);
        int depth;
        Throwable lastJavaError;
        long lastJavaErrorId;

        PyThread(Thread thread, MemorySegment state) {
            this.thread = thread;
            this.state = state;
        }
    }

    private Interpreter(PythonInstall install) {
        this.install = install;
        Libpython.load(install);
        if (Py.Py_IsInitialized() != 0) {
            throw new PythonUnavailableException("libpython from " + Libpython.loadedFrom()
                    + " is already initialised by other code in this process; jkompute needs its own interpreter");
        }
        long t0 = System.nanoTime();
        // the library computes its prefix from the program name otherwise, which in a JVM is java's
        withEnv("PYTHONHOME", install.basePrefix().equals(install.baseExecPrefix()) ? install.basePrefix()
                : install.basePrefix() + ":" + install.baseExecPrefix(), () -> Py.Py_InitializeEx(0));
        MemorySegment main = Py.PyThreadState_Get();
        interp = Py.PyThreadState_GetInterpreter(main);
        none = Py.symbol("_Py_NoneStruct");
        PyThread me = new PyThread(Thread.currentThread(), main);
        me.depth = 1;
        threads.set(me);
        threadStates.incrementAndGet();
        try {
            NativeModule.install();
            startEngine();
        } finally {
            me.depth = 0;
            Py.PyEval_SaveThread();
        }
        LOG.debug("{} embedded from {} in {} ms", install.describe(), Libpython.loadedFrom(),
                (System.nanoTime() - t0) / 1_000_000);
    }

    /** The interpreter, started on first use; a failed start fails every later call with the same one line. */
    public static Interpreter get() {
        Interpreter i = instance;
        if (i != null) {
            return i;
        }
        synchronized (Interpreter.class) {
            if (instance == null) {
                if (failure != null) {
                    throw failure;
                }
                try {
                    instance = new Interpreter(PythonInstall.fromEnvironment());
                } catch (PythonUnavailableException e) {
                    failure = e;
                    throw e;
                } catch (RuntimeException | LinkageError e) {
                    // a half-started interpreter cannot be started again: every later use fails the same way
                    failure = new PythonUnavailableException("the embedded Python failed to start: " + e);
                    failure.initCause(e);
                    throw failure;
                }
            }
            return instance;
        }
    }

    /** The interpreter when it was started already, else null (for shutdown paths that must not start it). */
    static Interpreter ifStarted() {
        return instance;
    }

    public PythonInstall install() {
        return install;
    }

    /** Takes the GIL for this thread (nested calls just count). Pair with {@link #exit()} in a finally. */
    public void enter() {
        PyThread t = threads.get();
        if (t == null) {
            t = newThread();
        }
        if (t.depth++ == 0) {
            Py.PyEval_RestoreThread(t.state);
            if (!pendingDecrefs.isEmpty()) {
                drainDecrefs();
            }
        }
    }

    public void exit() {
        PyThread t = threads.get();
        if (--t.depth == 0) {
            Py.PyEval_SaveThread();
        }
    }

    /** This thread's state; only valid while it holds the GIL. */
    PyThread current() {
        return threads.get();
    }

    /**
     * This thread's Python thread state, made once. A state is bound to the OS thread that makes it, which is what
     * lets CPython's own {@code PyGILState_Ensure} (ctypes callbacks, numpy's and CuPy's DLPack deleters) recognise a
     * thread that already holds the GIL. States of threads that have ended are kept, not deleted: deleting one from
     * another thread unbinds the deleting thread's own state on CPython 3.12 ({@code PyThreadState_Delete} clears
     * the caller's gilstate slot), after which the next {@code PyGILState_Ensure} on it waits for the GIL it holds.
     * The cost is one small state (about 16 KiB with its frame stack) per scheduler thread that ever ran Python.
     */
    private PyThread newThread() {
        MemorySegment ts = Py.PyThreadState_New(interp);
        PyThread t = new PyThread(Thread.currentThread(), ts);
        threads.set(t);
        threadStates.incrementAndGet();
        return t;
    }

    /** Python thread states made so far (one per Java thread that ran Python). */
    public static long threadStates() {
        return threadStates.get();
    }

    /** Drops a reference from a thread that may not hold the GIL (e.g. the Java thread releasing a message). */
    void decrefLater(MemorySegment o) {
        PyThread t = threads.get();
        if (t != null && t.depth > 0) {
            Py.Py_DecRef(o);
        } else {
            pendingDecrefs.add(o);
        }
    }

    private void drainDecrefs() {
        MemorySegment o;
        while ((o = pendingDecrefs.poll()) != null) {
            Py.Py_DecRef(o);
        }
    }

    // ---- calls (GIL held) ------------------------------------------------------------------------------------

    /** Calls a Python callable with no arguments; a Python exception becomes a {@link PyFailure} (or the Java one). */
    public MemorySegment callNoArgs(MemorySegment callable) {
        MemorySegment r = Py.PyObject_CallNoArgs(callable);
        if (r.address() == 0) {
            throw failure();
        }
        return r;
    }

    /** Calls with positional arguments: Long, Integer, String, Boolean, a PyObject ({@link MemorySegment}, borrowed) or null. */
    public MemorySegment call(MemorySegment callable, Object... args) {
        MemorySegment tuple = Py.PyTuple_New(args.length);
        for (int i = 0; i < args.length; i++) {
            Py.PyTuple_SetItem(tuple, i, toPython(args[i]));
        }
        MemorySegment r = Py.PyObject_CallObject(callable, tuple);
        Py.Py_DecRef(tuple);
        if (r.address() == 0) {
            throw failure();
        }
        return r;
    }

    /** A new reference to the attribute. */
    public MemorySegment attr(MemorySegment o, String name) {
        MemorySegment r;
        try (Arena a = Arena.ofConfined()) {
            r = Py.PyObject_GetAttrString(o, a.allocateFrom(name));
        }
        if (r.address() == 0) {
            throw failure();
        }
        return r;
    }

    /** A new reference to an attribute of the engine module (_jkompute_engine.py). */
    public MemorySegment engineAttr(String name) {
        return attr(engine, name);
    }

    public void decref(MemorySegment o) {
        if (o != null && o.address() != 0) {
            Py.Py_DecRef(o);
        }
    }

    MemorySegment none() {
        Py.Py_IncRef(none);
        return none;
    }

    boolean isNone(MemorySegment o) {
        return o.address() == none.address();
    }

    /** A new reference to a Python object for a Java value. */
    MemorySegment toPython(Object v) {
        if (v == null) {
            return none();
        }
        if (v instanceof MemorySegment o) {
            Py.Py_IncRef(o);
            return o;
        }
        if (v instanceof Boolean b) {
            return Py.PyBool_FromLong(b ? 1 : 0);
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return Py.PyLong_FromLongLong(((Number) v).longValue());
        }
        if (v instanceof Double || v instanceof Float) {
            return Py.PyFloat_FromDouble(((Number) v).doubleValue());
        }
        if (v instanceof String s) {
            return string(s);
        }
        if (v instanceof long[] a) {
            return tuple(a);
        }
        if (v instanceof List<?> l) {
            MemorySegment t = newTuple(l.size());
            for (int i = 0; i < l.size(); i++) {
                Py.PyTuple_SetItem(t, i, toPython(l.get(i)));
            }
            return t;
        }
        throw new IllegalArgumentException("no Python value for " + v.getClass().getName());
    }

    /** A new tuple of ints. */
    MemorySegment tuple(long[] values) {
        MemorySegment t = newTuple(values.length);
        for (int i = 0; i < values.length; i++) {
            Py.PyTuple_SetItem(t, i, Py.PyLong_FromLongLong(values[i]));
        }
        return t;
    }

    /** A new tuple of n empty slots, each to be set once with PyTuple_SetItem. */
    MemorySegment newTuple(long n) {
        MemorySegment t = Py.PyTuple_New(n);
        if (t.address() == 0) {
            throw failure();
        }
        return t;
    }

    /**
     * A new reference to the Python str of one of a few fixed labels (element types, storage and memory kinds):
     * made once and kept for the interpreter's life, so the tensor descriptions of every frame create no strings.
     */
    MemorySegment label(String s) {
        MemorySegment o = labels.get(s);
        if (o == null) {
            o = string(s);
            MemorySegment raced = labels.putIfAbsent(s, o);
            if (raced != null) {
                Py.Py_DecRef(o);
                o = raced;
            }
        }
        Py.Py_IncRef(o);
        return o;
    }

    MemorySegment string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        PyThread t = threads.get();
        if (t.text.byteSize() < b.length) {
            t.text = Arena.ofAuto().allocate(Math.max(b.length, t.text.byteSize() * 2));
        }
        MemorySegment.copy(b, 0, t.text, JAVA_BYTE, 0, b.length);
        MemorySegment r = Py.PyUnicode_FromStringAndSize(t.text, b.length);
        if (r.address() == 0) {
            throw failure();
        }
        return r;
    }

    /**
     * As {@link #javaString}, remembered by the str object's identity for the strs that calls pass frame after frame
     * (tensor names, element types, storage kinds): the interpreter keeps a reference to each remembered str, so
     * its address cannot name another object while it is remembered. At most {@value #ARGUMENT_STRS} are kept;
     * past that, strs are decoded each time.
     */
    String argumentString(MemorySegment o) {
        Long key = o.address();
        String v = argumentStrs.get(key);
        if (v != null) {
            return v;
        }
        v = javaString(o);
        if (v != null && argumentStrs.size() < ARGUMENT_STRS) {
            Py.Py_IncRef(o);
            if (argumentStrs.putIfAbsent(key, v) != null) {
                Py.Py_DecRef(o);
            }
        }
        return v;
    }

    /** A Python str as a Java String; null when it is not a str (the Python error is then set). */
    String javaString(MemorySegment o) {
        MemorySegment size = threads.get().scratch;
        MemorySegment p = Py.PyUnicode_AsUTF8AndSize(o, size);
        if (p.address() == 0) {
            return null;
        }
        long n = size.get(JAVA_LONG, 0);
        return new String(p.reinterpret(n).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
    }

    // ---- errors ----------------------------------------------------------------------------------------------

    /**
     * The pending Python exception, taken and described: the Java exception that an upcall raised into Python when
     * it is that one coming back unhandled, else a {@link PyFailure} naming the user's file and line.
     */
    RuntimeException failure() {
        PyThread t = threads.get();
        MemorySegment s = t.scratch;
        s.fill((byte) 0);
        MemorySegment pt = s.asSlice(0, 8);
        MemorySegment pv = s.asSlice(8, 8);
        MemorySegment ptb = s.asSlice(16, 8);
        Py.PyErr_Fetch(pt, pv, ptb);
        if (pt.get(ADDRESS, 0).address() == 0) {
            return new IllegalStateException("a Python call failed without an exception");
        }
        Py.PyErr_NormalizeException(pt, pv, ptb);
        MemorySegment type = pt.get(ADDRESS, 0);
        MemorySegment value = pv.get(ADDRESS, 0);
        MemorySegment tb = ptb.get(ADDRESS, 0);
        try {
            if (tb.address() != 0) {
                Py.PyException_SetTraceback(value, tb);
            }
            MemorySegment args = Py.PyTuple_New(1);
            Py.Py_IncRef(value);
            Py.PyTuple_SetItem(args, 0, value);
            MemorySegment d = Py.PyObject_CallObject(describe, args);
            Py.Py_DecRef(args);
            if (d.address() == 0) {
                Py.PyErr_Clear();
                return new IllegalStateException("a Python exception that could not be described");
            }
            String text = javaString(d);
            Py.Py_DecRef(d);
            String[] f = text.split("\0", 6);
            long javaId = Long.parseLong(f[4]);
            if (javaId != 0 && javaId == t.lastJavaErrorId && t.lastJavaError != null) {
                Throwable j = t.lastJavaError;
                t.lastJavaError = null;
                return j instanceof RuntimeException r ? r : new IllegalStateException(j.getMessage(), j);
            }
            return new PyFailure(f[0].isEmpty() ? null : f[0], Integer.parseInt(f[1]), f[2], f[3], f[5]);
        } finally {
            decref(type);
            decref(value);
            decref(tb);
        }
    }

    /** Raises a Java exception into Python as _jkompute_engine.JavaError (a RuntimeError) carrying its message. */
    void raise(Throwable e) {
        PyThread t = threads.get();
        t.lastJavaError = e;
        t.lastJavaErrorId++;
        String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        MemorySegment args = Py.PyTuple_New(2);
        Py.PyTuple_SetItem(args, 0, string(msg));
        Py.PyTuple_SetItem(args, 1, Py.PyLong_FromLongLong(t.lastJavaErrorId));
        MemorySegment type = javaErrorType != null ? javaErrorType : Py.global("PyExc_RuntimeError");
        Py.PyErr_SetObject(type, args);
        Py.Py_DecRef(args);
    }

    // ---- start-up --------------------------------------------------------------------------------------------

    private void startEngine() {
        MemorySegment module;
        try (Arena a = Arena.ofConfined()) {
            module = Py.PyImport_AddModule(a.allocateFrom(ENGINE_MODULE));
            if (module.address() == 0) {
                throw failure();
            }
            MemorySegment globals = Py.PyModule_GetDict(module);
            MemorySegment r = Py.PyRun_String(a.allocateFrom(resource("engine.py")), Py.FILE_INPUT, globals,
                    globals);
            if (r.address() == 0) {
                throw failure();
            }
            Py.Py_DecRef(r);
        }
        Py.Py_IncRef(module);
        engine = module;
        describe = engineAttr("describe");
        javaErrorType = engineAttr("JavaError");
        MemorySegment setup = engineAttr("setup");
        List<Object> modules = new ArrayList<>();
        for (String[] m : GXF_MODULES) {
            String file = m[0].replace('.', '/') + (m[1].equals("package") ? "/__init__.py" : ".py");
            modules.add(List.of(m[0], "<jkompute>/" + file, resource("gxf/" + file.substring(4)),
                    m[1].equals("package")));
        }
        MemorySegment r = call(setup, install.path(), install.prefix(), install.execPrefix(), install.executable(),
                modules);
        decref(r);
        decref(setup);
    }

    /** The gxf package, in import order. */
    private static final String[][] GXF_MODULES = {{"gxf", "package"}, {"gxf.core", "module"},
            {"gxf._dlpack", "module"}, {"gxf.std", "module"}, {"gxf.cuda", "module"},
            {"gxf.python_codelet.codelet", "module"}, {"gxf.python_codelet", "package"}};

    private static String resource(String name) {
        try (InputStream in = Interpreter.class.getResourceAsStream("/io/jkompute/python/" + name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " missing from the jkompute-python jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code action} with an environment variable set, restoring the previous value after. */
    private static void withEnv(String name, String value, Runnable action) {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        MethodHandle getenv = linker.downcallHandle(libc.find("getenv").orElseThrow(), FunctionDescriptor.of(ADDRESS, ADDRESS));
        MethodHandle setenv = linker.downcallHandle(libc.find("setenv").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        MethodHandle unsetenv = linker.downcallHandle(libc.find("unsetenv").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment n = a.allocateFrom(name);
            MemorySegment old = (MemorySegment) getenv.invokeExact(n);
            String previous = old.address() == 0 ? null : old.reinterpret(65536).getString(0);
            int rc = (int) setenv.invokeExact(n, a.allocateFrom(value), 1);
            try {
                action.run();
            } finally {
                rc = previous == null ? (int) unsetenv.invokeExact(n) : (int) setenv.invokeExact(n,
                        a.allocateFrom(previous), 1);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** For diagnostics: Java objects that Python code holds. */
    public static int liveHandles() {
        return Handles.live();
    }
}
