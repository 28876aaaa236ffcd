package io.jkompute.python.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jkompute.DataType;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.Clock;
import io.jkompute.graph.Component;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.StorageType;
import io.jkompute.graph.Timestamp;
import io.jkompute.graph.Transmitter;
import io.jkompute.cuda.GpuArray;
import io.jkompute.graph.cuda.CudaDeviceTensor;
import io.jkompute.graph.cuda.CudaStreamId;
import io.jkompute.graph.cuda.CudaStreamPool;
import io.jkompute.graph.std.BooleanSchedulingTerm;
import io.jkompute.graph.std.CountSchedulingTerm;
import io.jkompute.graph.std.PeriodicSchedulingTerm;
import io.jkompute.graph.std.TargetTimeSchedulingTerm;
import io.jkompute.graph.SchedulingTerm;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code _jkompute} extension module: what the gxf package calls to reach the graph. Each function is a
 * {@code METH_FASTCALL} C function whose pointer is an FFM upcall stub into a Java lambda; arguments are ints
 * (handles, see {@link Handles}), strings and floats. A Java exception never unwinds through the stub (that would
 * end the JVM): it is raised in Python as {@code _jkompute_engine.JavaError} and, if Python does not handle it,
 * comes back to Java as itself (see {@link Interpreter#failure()}).
 */
final class NativeModule {
    private static final int METH_FASTCALL = 0x80;
    private static final int METH_NOARGS = 0x4;
    private static final long METHOD_DEF_SIZE = 32;
    /** PyModuleDef: PyModuleDef_Base (40 bytes) then name, doc, size, methods, slots, traverse, clear, free. */
    private static final long MODULE_DEF_SIZE = 104;

    /** A _jkompute function. */
    @FunctionalInterface
    interface Fn {
        MemorySegment call(Args a) throws Throwable;
    }

    /** Thrown by argument readers when Python already has an error set (e.g. a str where an int was expected). */
    private static final class PythonErrorSet extends RuntimeException {
        PythonErrorSet() {
            super(null, null, false, false);
        }
    }

    private static final PythonErrorSet ERROR_SET = new PythonErrorSet();

    /** The arguments of one call, read on demand. */
    static final class Args {
        private final MemorySegment args;
        private final long n;

        Args(MemorySegment args, long n) {
            this.args = n == 0 ? args : args.reinterpret(n * 8);
            this.n = n;
        }

        int count() {
            return (int) n;
        }

        MemorySegment o(int k) {
            if (k >= n) {
                throw new IllegalArgumentException("missing argument " + (k + 1));
            }
            return args.getAtIndex(ADDRESS, k);
        }

        long i(int k) {
            long v = Py.PyLong_AsLongLong(o(k));
            if (v == -1 && Py.PyErr_Occurred().address() != 0) {
                throw ERROR_SET;
            }
            return v;
        }

        double d(int k) {
            double v = Py.PyFloat_AsDouble(o(k));
            if (v == -1 && Py.PyErr_Occurred().address() != 0) {
                throw ERROR_SET;
            }
            return v;
        }

        String s(int k) {
            String v = interpreter().argumentString(o(k));
            if (v == null) {
                throw ERROR_SET;
            }
            return v;
        }

        <T> T h(int k, Class<T> type) {
            Object o = Handles.get(i(k));
            if (!type.isInstance(o)) {
                throw new IllegalArgumentException("expected a " + type.getSimpleName() + " handle, got "
                        + o.getClass().getSimpleName());
            }
            return type.cast(o);
        }
    }

    /** For a caller that found Python's error indicator set: the upcall returns NULL and Python raises it. */
    static RuntimeException pythonErrorSet() {
        return ERROR_SET;
    }

    /**
     * Sets a Python exception of a built-in type (e.g. {@code "PyExc_TypeError"}) for the user's own mistake in a
     * call, so that Python code sees the type it would expect rather than a JavaError; throw what this returns.
     */
    static RuntimeException pythonError(String type, String message) {
        try (Arena a = Arena.ofConfined()) {
            Py.PyErr_SetString(Py.global(type), a.allocateFrom(message));
        }
        return ERROR_SET;
    }

    private static Interpreter interpreter;

    private NativeModule() {
    }

    static Interpreter interpreter() {
        Interpreter i = interpreter;
        return i != null ? i : Interpreter.ifStarted();
    }

    /** Creates the module and puts it in sys.modules; called once while the interpreter starts (GIL held). */
    static void install() {
        Map<String, Fn> fns = functions();
        Arena forever = Arena.global();
        MemorySegment methods = forever.allocate(METHOD_DEF_SIZE * (fns.size() + 1), 8);
        MethodHandle dispatch;
        try {
            dispatch = MethodHandles.lookup().findStatic(NativeModule.class, "dispatch", MethodType.methodType(
                    MemorySegment.class, Fn.class, MemorySegment.class, MemorySegment.class, long.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        FunctionDescriptor fastcall = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG);
        long off = 0;
        for (Map.Entry<String, Fn> e : fns.entrySet()) {
            MemorySegment stub = Linker.nativeLinker().upcallStub(MethodHandles.insertArguments(dispatch, 0,
                    e.getValue()), fastcall, forever);
            methods.set(ADDRESS, off, forever.allocateFrom(e.getKey()));
            methods.set(ADDRESS, off + 8, stub);
            methods.set(JAVA_INT, off + 16, METH_FASTCALL);
            methods.set(ADDRESS, off + 24, MemorySegment.NULL);
            off += METHOD_DEF_SIZE;
        }
        MemorySegment def = forever.allocate(MODULE_DEF_SIZE, 8);
        def.set(JAVA_LONG, 0, 1); // ob_refcnt as PyModuleDef_HEAD_INIT sets it
        def.set(ADDRESS, 40, forever.allocateFrom("_jkompute"));
        def.set(ADDRESS, 48, forever.allocateFrom("jkompute's graph, as the gxf package reaches it"));
        def.set(JAVA_LONG, 56, -1);
        def.set(ADDRESS, 64, methods);
        MemorySegment module = Py.PyModule_Create2(def, 1013);
        if (module.address() == 0) {
            throw new IllegalStateException("PyModule_Create2 failed for _jkompute");
        }
        installFinalizers(module, forever);
        int rc = Py.PyDict_SetItemString(Py.PyImport_GetModuleDict(), forever.allocateFrom("_jkompute"), module);
        if (rc != 0) {
            throw new IllegalStateException("cannot register _jkompute in sys.modules");
        }
    }

    /**
     * The module's two {@code __del__} methods, each a method descriptor whose C function is an upcall giving a
     * handle back, so that CPython finalizes with no Python frame in between (a Python-level {@code __del__} costs a
     * frame per message or tensor on top of the release itself):
     * {@code _jkompute.entity_finalizer} for gxf.core.Entity, a method of {@code int} (an Entity is an int subclass
     * whose value is its handle); {@code _jkompute.handle_finalizer} for the wrappers that keep their handle in
     * {@code _h} (Tensor, Component, ...), a method of {@code object}.
     */
    private static void installFinalizers(MemorySegment module, Arena forever) {
        handleAttribute = forever.allocateFrom("_h");
        installFinalizer(module, forever, "entity_finalizer", "PyLong_Type", "releaseEntity");
        installFinalizer(module, forever, "handle_finalizer", "PyBaseObject_Type", "releaseHandleAttribute");
    }

    private static void installFinalizer(MemorySegment module, Arena forever, String name, String type,
                                         String javaMethod) {
        MethodHandle target;
        try {
            target = MethodHandles.lookup().findStatic(NativeModule.class, javaMethod, MethodType.methodType(
                    MemorySegment.class, MemorySegment.class, MemorySegment.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        MemorySegment stub = Linker.nativeLinker().upcallStub(target, FunctionDescriptor.of(ADDRESS, ADDRESS,
                ADDRESS), forever);
        MemorySegment def = forever.allocate(METHOD_DEF_SIZE, 8);
        def.set(ADDRESS, 0, forever.allocateFrom("__del__"));
        def.set(ADDRESS, 8, stub);
        def.set(JAVA_INT, 16, METH_NOARGS);
        def.set(ADDRESS, 24, MemorySegment.NULL);
        MemorySegment descriptor = Py.PyDescr_NewMethod(Py.symbol(type), def);
        if (descriptor.address() == 0 || Py.PyObject_SetAttrString(module, forever.allocateFrom(name),
                descriptor) != 0) {
            throw new IllegalStateException("cannot create _jkompute." + name);
        }
        Py.Py_DecRef(descriptor);
    }

    private static MemorySegment handleAttribute;

    /**
     * The handle in {@code self._h} back, {@code _h} set to 0 first (a second call gives nothing back); an object
     * whose {@code __init__} failed before setting {@code _h} has nothing to give back. As {@link #dispatch}, no Java
     * exception reaches the native frame.
     */
    static MemorySegment releaseHandleAttribute(MemorySegment self, MemorySegment unused) {
        try {
            MemorySegment attribute = Py.PyObject_GetAttrString(self, handleAttribute);
            if (attribute.address() == 0) {
                Py.PyErr_Clear();
                return interpreter().none();
            }
            long h = Py.PyLong_AsLongLong(attribute);
            Py.Py_DecRef(attribute);
            if (h == -1 && Py.PyErr_Occurred().address() != 0) {
                return MemorySegment.NULL;
            }
            if (h != 0) {
                MemorySegment zero = Py.PyLong_FromLongLong(0);
                int rc = Py.PyObject_SetAttrString(self, handleAttribute, zero);
                Py.Py_DecRef(zero);
                if (rc != 0) {
                    return MemorySegment.NULL;
                }
                Handles.release(h);
            }
            return interpreter().none();
        } catch (Throwable t) {
            return raised(t);
        }
    }

    /** An Entity's handle back (0: none held); as {@link #dispatch}, no Java exception reaches the native frame. */
    static MemorySegment releaseEntity(MemorySegment self, MemorySegment unused) {
        try {
            long h = Py.PyLong_AsLongLong(self);
            if (h == -1 && Py.PyErr_Occurred().address() != 0) {
                return MemorySegment.NULL;
            }
            if (h != 0) {
                Handles.release(h);
            }
            return interpreter().none();
        } catch (Throwable t) {
            return raised(t);
        }
    }

    /** The upcall target: never lets a Java exception reach the native frame. */
    static MemorySegment dispatch(Fn fn, MemorySegment self, MemorySegment args, long nargs) {
        try {
            MemorySegment r = fn.call(new Args(args, nargs));
            return r == null ? interpreter().none() : r;
        } catch (PythonErrorSet e) {
            return MemorySegment.NULL;
        } catch (Throwable t) {
            return raised(t);
        }
    }

    /** A Java exception raised in Python; NULL for the upcall to return. */
    private static MemorySegment raised(Throwable t) {
        try {
            interpreter().raise(t);
        } catch (Throwable again) {
            // nothing sensible is left to report with; Python sees a SystemError for a NULL without exception
        }
        return MemorySegment.NULL;
    }

    private static MemorySegment py(Object v) {
        return interpreter().toPython(v);
    }

    private static MemorySegment none() {
        MemorySegment n = interpreter().none();
        Py.Py_DecRef(n);
        return n;
    }

    private static MemorySegment handle(Object o) {
        return Py.PyLong_FromLongLong(Handles.put(o));
    }

    private static Map<String, Fn> functions() {
        Map<String, Fn> f = new LinkedHashMap<>();
        f.put("release", a -> {
            Handles.release(a.i(0));
            return null;
        });
        f.put("lookup", a -> handle(a.h(0, PyContext.class).lookup(a.i(1), a.s(2), a.s(3))));
        f.put("path", a -> py(a.h(0, Component.class).path()));
        f.put("type_name", a -> py(a.h(0, Component.class).getClass().getSimpleName()));

        // a codelet's bridge: CodeletAdapter's getters
        f.put("bridge", a -> {
            // the property by number (the order of BRIDGE in codelet.py): no string to decode on the hot path
            PyCodeletBridge b = a.h(0, PyCodeletBridge.class);
            int what = (int) a.i(1);
            return switch (what) {
                case 0 -> handle(b.context());
                case 1 -> py(b.eid());
                case 2 -> py(b.cid());
                case 3 -> py(b.name());
                case 4 -> py(b.executionTimestamp());
                case 5 -> py(b.executionTime());
                case 6 -> py(b.deltaTime());
                case 7 -> py(b.executionCount());
                case 8 -> py(b.isFirstTick());
                case 9 -> py(b.paramsJson());
                case 10 -> handle(b.clock());
                case 11 -> handles(b.receivers());
                case 12 -> handles(b.transmitters());
                case 13 -> handles(b.allocators());
                case 14 -> handles(b.streamPools());
                default -> throw new IllegalArgumentException("no bridge property " + what);
            };
        });

        // messages and queues
        f.put("new_message", a -> handle(Message.create()));
        f.put("receive", a -> handle(a.h(0, Receiver.class).receive()));
        f.put("publish", a -> {
            a.h(0, Transmitter.class).publish(a.h(1, Message.class), a.i(2));
            return null;
        });
        f.put("queue_sizes", a -> {
            Object q = Handles.get(a.i(0));
            if (q instanceof Receiver r) {
                return py(new long[] {r.size(), r.backSize(), r.capacity()});
            }
            if (q instanceof Transmitter t) {
                return py(new long[] {t.size(), t.backSize(), t.capacity()});
            }
            throw new IllegalArgumentException(q + " is neither a receiver nor a transmitter");
        });
        f.put("sync", a -> {
            a.h(0, Receiver.class).sync();
            return null;
        });
        f.put("timestamp", a -> {
            Timestamp t = a.h(0, Message.class).timestamp();
            return t == null ? null : py(new long[] {t.acqtime(), t.pubtime()});
        });
        f.put("set_timestamp", a -> {
            a.h(0, Message.class).setTimestamp(new Timestamp(a.i(2), a.i(1)));
            return null;
        });
        f.put("clock_time", a -> py(a.h(0, Clock.class).time()));
        f.put("clock_timestamp", a -> py(a.h(0, Clock.class).timestamp()));

        // tensors
        f.put("tensors", a -> {
            long message = a.i(0);
            Message m = a.h(0, Message.class);
            List<Object> hs = new ArrayList<>();
            for (int k = m.indexOf(GraphTensor.class, null, 0); k >= 0; k = m.indexOf(GraphTensor.class, null, k + 1)) {
                hs.add(Handles.ofComponent(message, k));
            }
            return py(hs);
        });
        f.put("tensor_with_info", a -> {
            // Tensor.get_from_entity in one call: the named (or, for "", the first) tensor's handle and its
            // description, so a codelet reading shape, type or pointer makes no further call
            Message m = a.h(0, Message.class);
            String name = a.s(1);
            int k = m.indexOf(GraphTensor.class, name.isEmpty() ? null : name, 0);
            return k < 0 ? null : handleWithInfo(a.i(0), k, (GraphTensor) m.component(k));
        });
        f.put("add_tensor", a -> {
            // (message, name, allocator, element type, storage, tensor it replaces or 0, dimension, dimension, ...)
            if (a.count() < 6) {
                throw new IllegalArgumentException("add_tensor takes 6 arguments and the dimensions, got " + a.count());
            }
            Message m = a.h(0, Message.class);
            Allocator alloc = a.h(2, Allocator.class);
            DataType type = dataType(a.s(3));
            long[] shape = new long[a.count() - 6];
            for (int k = 0; k < shape.length; k++) {
                shape[k] = a.i(6 + k);
            }
            GraphTensor t = switch (a.s(4)) {
                case "host", "system" -> HostTensor.allocate(alloc, type, shape);
                // CUDA memory where the pool holds CUDA memory, Vulkan memory where it names a VulkanDevice
                case "device" -> GraphTensor.allocate(alloc, StorageType.DEVICE, type, shape);
                default -> throw new IllegalArgumentException("storage must be host, system or device");
            };
            long previous = a.i(5);
            if (previous == 0) {
                m.add(a.s(1), t);
            } else {
                // GXF's reshape of an allocated tensor: the new memory takes the old one's place (and so its
                // handle), and the old goes back
                m.replace(a.h(5, GraphTensor.class), t);
            }
            // the new tensor's description comes back with its handle: reshape is one call
            return handleWithInfo(a.i(0), place(m, t), t);
        });
        f.put("tensor_info", a -> info(a.h(0, GraphTensor.class)));
        f.put("cuda_use", a -> {
            // (stream cid, tensor handle, tensor handle, ...): the tensors a kernel on the stream of a CudaStreamPool
            // (by cid) is about to use, ordered on that stream in one call
            CudaStreamId id = CudaStreamId.forCid(a.i(0));
            if (id == null) {
                throw new IllegalArgumentException("no live CUDA stream with cid " + a.i(0)
                        + " (allocate_stream() gives one)");
            }
            for (int k = 1; k < a.count(); k++) {
                CudaLaunch.orderOn(a.h(k, CudaDeviceTensor.class), id.stream());
            }
            return null;
        });
        f.put("launch", CudaLaunch::launch);
        f.put("cuda_synchronize", a -> {
            a.h(0, CudaDeviceTensor.class).synchronize();
            return null;
        });
        f.put("wrap_dlpack", a -> {
            // a DLManagedTensor* from CuPy / PyTorch (the capsule already marked used): the tensor owns it and
            // calls the producer's deleter when the message releases it
            Message m = a.h(0, Message.class);
            GpuArray array = GpuArray.fromDlpack(MemorySegment.ofAddress(a.i(2)));
            try {
                DataType type = dataType(array.dtype().name().toLowerCase(java.util.Locale.ROOT));
                CudaDeviceTensor t = CudaDeviceTensor.wrap(array, type, array.shape(), array::close);
                m.add(a.s(1), t);
                return componentHandle(a.i(0), m, t);
            } catch (RuntimeException e) {
                array.close();
                throw e;
            }
        });
        f.put("allocate_stream", a -> {
            CudaStreamId id = a.h(0, CudaStreamPool.class).allocateStream();
            return py(List.of(id.cid(), id.handle(), (long) id.device()));
        });
        f.put("release_stream", a -> {
            CudaStreamPool pool = a.h(0, CudaStreamPool.class);
            CudaStreamId id = CudaStreamId.forCid(a.i(1));
            if (id == null) {
                throw new IllegalArgumentException("no live CUDA stream with cid " + a.i(1));
            }
            pool.releaseStream(id);
            return null;
        });
        f.put("stream_of_cid", a -> {
            CudaStreamId id = CudaStreamId.forCid(a.i(0));
            return id == null ? null : py(List.of(id.handle(), (long) id.device()));
        });
        f.put("add_stream_id", a -> {
            CudaStreamId id = CudaStreamId.forCid(a.i(2));
            if (id == null) {
                throw new IllegalArgumentException("no live CUDA stream with cid " + a.i(2)
                        + " (allocate_stream() gives one)");
            }
            a.h(0, Message.class).add(a.s(1), id);
            return null;
        });
        f.put("stream_id", a -> {
            Message m = a.h(0, Message.class);
            String name = a.s(1);
            CudaStreamId id = name.isEmpty() ? m.get(CudaStreamId.class) : m.get(CudaStreamId.class, name);
            return id == null ? null : py(id.cid());
        });
        f.put("to_host", a -> {
            GraphTensor t = a.h(0, GraphTensor.class);
            if (t instanceof HostTensor) {
                return handle(t);
            }
            return handle(HostTensor.wrap(t.toHost(Arena.ofAuto()), t.dataType(), t.shape()));
        });
        f.put("upload", a -> {
            // host bytes (a numpy array's memory) into a device tensor: jkompute device memory is not mapped
            GraphTensor t = a.h(0, GraphTensor.class);
            MemorySegment src = MemorySegment.ofAddress(a.i(1)).reinterpret(a.i(2));
            if (t instanceof HostTensor h) {
                MemorySegment.copy(src, 0, h.data(), 0, Math.min(src.byteSize(), h.data().byteSize()));
            } else {
                t.copyFromHost(src);
            }
            return null;
        });
        f.put("wrap_array", a -> {
            // a Python buffer (numpy array) as a host tensor without a copy: the tensor holds a reference to the
            // Python object and gives it back when the message releases it
            Message m = a.h(0, Message.class);
            long address = a.i(2);
            long bytes = a.i(3);
            DataType type = dataType(a.s(4));
            long[] shape = longs(a.s(5));
            long[] strides = longs(a.s(6));
            MemorySegment owner = a.o(7);
            Py.Py_IncRef(owner);
            Interpreter in = interpreter();
            HostTensor t = HostTensor.wrap(MemorySegment.ofAddress(address).reinterpret(bytes), type, shape, strides,
                    () -> in.decrefLater(owner));
            m.add(a.s(1), t);
            return componentHandle(a.i(0), m, t);
        });

        // Python objects in messages (PyData, CudaStreamId)
        f.put("add_object", a -> {
            MemorySegment o = a.o(2);
            Py.Py_IncRef(o);
            a.h(0, Message.class).add(a.s(1), new PyObjectRef(interpreter(), o));
            return null;
        });
        f.put("get_object", a -> {
            Message m = a.h(0, Message.class);
            String name = a.s(1);
            PyObjectRef ref = name.isEmpty() ? m.get(PyObjectRef.class) : m.get(PyObjectRef.class, name);
            return ref == null ? py(List.of(false, none())) : py(List.of(true, ref.object()));
        });

        // scheduling terms
        f.put("term", a -> {
            SchedulingTerm term = a.h(0, SchedulingTerm.class);
            String op = a.s(1);
            return switch (op) {
                case "enable_tick" -> {
                    as(term, BooleanSchedulingTerm.class).enableTick();
                    yield null;
                }
                case "disable_tick" -> {
                    as(term, BooleanSchedulingTerm.class).disableTick();
                    yield null;
                }
                case "check_tick_enabled" -> py(as(term, BooleanSchedulingTerm.class).checkTickEnabled());
                case "check" -> py(term.check(a.i(2)).type().name());
                case "remaining" -> py(as(term, CountSchedulingTerm.class).remaining());
                case "recess_period_ns" -> py(as(term, PeriodicSchedulingTerm.class).recessPeriodNs());
                case "last_run_timestamp" -> py(as(term, PeriodicSchedulingTerm.class).lastRunTimestamp());
                case "set_next_target_time" -> {
                    as(term, TargetTimeSchedulingTerm.class).setNextTargetTime(a.i(2));
                    yield null;
                }
                default -> throw new IllegalArgumentException("no scheduling-term operation " + op);
            };
        });
        return f;
    }

    /**
     * A tensor's description as Python reads it, (address, bytes, type, shape, strides, storage, memory kind (host /
     * cuda / vulkan), device, CUstream): a tuple built in place, its labels the interpreter's kept strs, as every
     * received and allocated tensor of every frame needs one.
     */
    private static MemorySegment info(GraphTensor t) {
        long address = 0;
        long bytes = 0;
        String kind = "host";
        long device = 0;
        long stream = 0;
        if (t instanceof HostTensor h) {
            address = h.data().address();
            bytes = h.data().byteSize();
        } else if (t instanceof CudaDeviceTensor c) {
            kind = "cuda";
            address = c.pointer();
            bytes = c.byteSize();
            device = c.device();
            stream = c.streamHandle();
        } else if (t.storage() == StorageType.DEVICE) {
            kind = "vulkan";
        }
        String storage = t.storage() == StorageType.DEVICE ? "device"
                : t.storage() == StorageType.HOST ? "host" : "system";
        Interpreter in = interpreter();
        MemorySegment info = in.newTuple(9);
        Py.PyTuple_SetItem(info, 0, Py.PyLong_FromLongLong(address));
        Py.PyTuple_SetItem(info, 1, Py.PyLong_FromLongLong(bytes));
        Py.PyTuple_SetItem(info, 2, in.label(t.dataType().toString()));
        Py.PyTuple_SetItem(info, 3, in.tuple(t.shape()));
        Py.PyTuple_SetItem(info, 4, in.tuple(t.strides()));
        Py.PyTuple_SetItem(info, 5, in.label(storage));
        Py.PyTuple_SetItem(info, 6, in.label(kind));
        Py.PyTuple_SetItem(info, 7, Py.PyLong_FromLongLong(device));
        Py.PyTuple_SetItem(info, 8, Py.PyLong_FromLongLong(stream));
        return info;
    }

    /** (handle, info) of the tensor at {@code place} of the message whose handle is {@code message}. */
    private static MemorySegment handleWithInfo(long message, int place, GraphTensor t) {
        MemorySegment pair = interpreter().newTuple(2);
        Py.PyTuple_SetItem(pair, 0, Py.PyLong_FromLongLong(Handles.ofComponent(message, place)));
        Py.PyTuple_SetItem(pair, 1, info(t));
        return pair;
    }

    /** Where {@code t} (by identity) is among the tensors of {@code m}. */
    private static int place(Message m, GraphTensor t) {
        for (int k = m.indexOf(GraphTensor.class, null, 0); k >= 0; k = m.indexOf(GraphTensor.class, null, k + 1)) {
            if (m.component(k) == t) {
                return k;
            }
        }
        throw new IllegalStateException("a tensor just added is not in its message");
    }

    /** The handle of {@code t}, a tensor of {@code m} (whose handle is {@code message}), as a Python int. */
    private static MemorySegment componentHandle(long message, Message m, GraphTensor t) {
        return Py.PyLong_FromLongLong(Handles.ofComponent(message, place(m, t)));
    }

    private static <T> T as(Object o, Class<T> type) {
        if (!type.isInstance(o)) {
            throw new IllegalArgumentException(o + " is not a " + type.getSimpleName());
        }
        return type.cast(o);
    }

    private static MemorySegment handles(List<?> objects) {
        List<Object> hs = new ArrayList<>(objects.size());
        for (Object o : objects) {
            hs.add(Handles.put(o));
        }
        return py(hs);
    }

    private static long[] longs(String csv) {
        if (csv.isEmpty()) {
            return new long[0];
        }
        String[] parts = csv.split(",");
        long[] out = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = Long.parseLong(parts[i].strip());
        }
        return out;
    }

    /** Element types by label (DataType's toString), CUSTOM left out: it has no tensor type. */
    private static final Map<String, DataType> TYPES = types();

    private static Map<String, DataType> types() {
        Map<String, DataType> m = new java.util.HashMap<>();
        for (DataType d : DataType.values()) {
            if (d != DataType.CUSTOM) {
                m.put(d.toString(), d);
            }
        }
        return Map.copyOf(m);
    }

    static DataType dataType(String label) {
        DataType d = TYPES.get(label);
        if (d == null) {
            throw new IllegalArgumentException("element type '" + label + "' has no jkompute tensor type");
        }
        return d;
    }
}
