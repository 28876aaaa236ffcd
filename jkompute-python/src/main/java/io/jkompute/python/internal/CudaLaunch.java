package io.jkompute.python.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jkompute.cuda.Dim3;
import io.jkompute.cuda.Stream;
import io.jkompute.graph.cuda.CudaDeviceTensor;
import io.jkompute.graph.cuda.CudaStreamId;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code gxf.cuda.launch} as one call to the graph: a CuPy kernel started with {@code cuLaunchKernel} on the stream
 * of a CudaStreamPool, its arguments read from the Python objects and packed here, each in an 8-byte slot: CUDA
 * tensors by their device pointer (work another stream queued on one is finished first, and the tensor records the
 * launch stream, as {@code cuda_use} does), CuPy arrays by {@code data.ptr}, numpy scalars and Python int, float and
 * bool by value. Done in Python, the same steps (finding the kernel's plan, packing the slots, a graph call to order
 * the tensors and CuPy's {@code launchKernel}) cost more than the driver's launch itself, on every frame.
 *
 * <p>What needs Python is asked of gxf.cuda once and kept: a kernel's {@code CUfunction} per device
 * ({@code _function}, which compiles a RawKernel for the device as CuPy's own call does, and makes the device
 * current), and an argument type's kind ({@code _argument_kind}, which also words the error for a type that cannot be
 * passed). Kernels and types are held while cached, so an address seen again is the same object.
 */
final class CudaLaunch {
    /** Argument kinds, numbered as gxf.cuda's {@code _argument_kind} gives them. */
    private static final int TENSOR = 0, ARRAY = 1, I8 = 2, U8 = 3, I16 = 4, U16 = 5, I32 = 6, U32 = 7, I64 = 8,
            U64 = 9, F16 = 10, F32 = 11, F64 = 12, BOOL = 13;
    private static final int CACHE_MAX = 256;

    private record Function(long kernel, int device, long function) {
    }

    /** This thread's parameter block: the {@code void*[]} the driver reads, then one 8-byte value slot each. */
    private static final class Params {
        MemorySegment block = MemorySegment.NULL;
        int capacity;
        CudaDeviceTensor[] tensors = new CudaDeviceTensor[8];

        MemorySegment forArguments(int n) {
            if (n > capacity) {
                capacity = Math.max(n, Math.max(8, capacity * 2));
                block = Arena.ofAuto().allocate(16L * capacity, 8);
                for (int k = 0; k < capacity; k++) {
                    block.setAtIndex(ADDRESS, k, block.asSlice(8L * capacity + 8L * k, 8));
                }
            }
            return block;
        }

        long valueOffset(int k) {
            return 8L * capacity + 8L * k;
        }
    }

    private static final ThreadLocal<Params> PARAMS = ThreadLocal.withInitial(Params::new);
    private static final ConcurrentHashMap<Long, Integer> KINDS = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<Long, Function> FUNCTIONS = new ConcurrentHashMap<>();
    private static volatile Function last;
    private static MemorySegment argumentKind, handleName, cidName, dataName, ptrName;
    private static volatile MemorySegment functionOf;
    private static MemorySegment tupleType, listType;

    private CudaLaunch() {
    }

    /** gxf.cuda's two helpers and the names read per call, looked up at the first launch (GIL held). */
    private static void lookUpHelpers() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment module = Py.PyImport_ImportModule(arena.allocateFrom("gxf.cuda"));
            if (module.address() == 0) {
                throw NativeModule.pythonErrorSet();
            }
            MemorySegment f = Py.PyObject_GetAttrString(module, arena.allocateFrom("_function"));
            MemorySegment k = Py.PyObject_GetAttrString(module, arena.allocateFrom("_argument_kind"));
            Py.Py_DecRef(module);
            if (f.address() == 0 || k.address() == 0) {
                throw NativeModule.pythonErrorSet();
            }
            handleName = Py.PyUnicode_InternFromString(arena.allocateFrom("_h"));
            cidName = Py.PyUnicode_InternFromString(arena.allocateFrom("cid"));
            dataName = Py.PyUnicode_InternFromString(arena.allocateFrom("data"));
            ptrName = Py.PyUnicode_InternFromString(arena.allocateFrom("ptr"));
            tupleType = Py.symbol("PyTuple_Type");
            listType = Py.symbol("PyList_Type");
            argumentKind = k;
            functionOf = f; // last: the flag that the rest is set
        }
    }

    /** {@code _jkompute.launch(kernel, grid, block, args, stream, shared_mem)}. */
    static MemorySegment launch(NativeModule.Args a) {
        if (functionOf == null) {
            lookUpHelpers();
        }
        long shared = a.i(5);
        if (shared < 0 || shared > Integer.MAX_VALUE) {
            throw NativeModule.pythonError("PyExc_ValueError", "shared_mem must be 0 to 2^31-1 bytes, got " + shared);
        }
        CudaStreamId id = CudaStreamId.forCid(streamCid(a.o(4)));
        if (id == null) {
            throw NativeModule.pythonError("PyExc_ValueError",
                    "launch needs a live stream from CudaStreamPool.allocate_stream()");
        }
        Stream stream = id.stream();
        long function = function(a.o(0), id.device());
        Dim3 grid = dims(a.o(1), "grid"), block = dims(a.o(2), "block");
        MemorySegment args = a.o(3);
        long type = typeOf(args);
        boolean tuple = type == tupleType.address();
        if (!tuple && type != listType.address()) {
            throw NativeModule.pythonError("PyExc_TypeError", "launch's args must be a tuple or a list");
        }
        int n = Math.toIntExact(tuple ? Py.PyTuple_Size(args) : Py.PyList_Size(args));
        Params p = PARAMS.get();
        MemorySegment params = p.forArguments(n);
        try {
            int tensors = pack(args, tuple, n, p);
            // every argument read before any tensor changes stream: a bad argument leaves the tensors as they were
            for (int k = 0; k < tensors; k++) {
                orderOn(p.tensors[k], stream);
            }
        } finally {
            Arrays.fill(p.tensors, null); // no tensor kept past the call, also when an argument was refused
        }
        stream.launch(function, grid, block, (int) shared, n == 0 ? MemorySegment.NULL : params);
        return null;
    }

    /**
     * A CUDA tensor about to be used on {@code stream}: work another stream queued on it is finished first, and the
     * stream is recorded on it, so that its pool block is neither reused nor read downstream before that stream's work
     * has run (as CudaScale.java does per frame). For {@code cuda_use} and for launch.
     */
    static void orderOn(CudaDeviceTensor t, Stream stream) {
        Stream previous = t.stream();
        if (previous != null && previous != stream) {
            t.synchronize();
        }
        t.setStream(stream);
    }

    /** Each argument into its slot; the CUDA tensors among them into p.tensors. Returns how many tensors. */
    private static int pack(MemorySegment args, boolean tuple, int n, Params p) {
        MemorySegment slots = p.block;
        int tensors = 0;
        for (int k = 0; k < n; k++) {
            MemorySegment arg = tuple ? Py.PyTuple_GetItem(args, k) : Py.PyList_GetItem(args, k);
            long slot = p.valueOffset(k);
            switch (kind(arg, k)) {
                case TENSOR -> {
                    CudaDeviceTensor t = cudaTensor(arg, k);
                    if (tensors == p.tensors.length) {
                        p.tensors = Arrays.copyOf(p.tensors, tensors * 2);
                    }
                    p.tensors[tensors++] = t;
                    slots.set(JAVA_LONG, slot, t.pointer());
                }
                case ARRAY -> slots.set(JAVA_LONG, slot, arrayPointer(arg));
                case I8 -> slots.set(JAVA_BYTE, slot, (byte) integer(arg, k, Byte.MIN_VALUE, Byte.MAX_VALUE));
                case U8 -> slots.set(JAVA_BYTE, slot, (byte) integer(arg, k, 0, 0xFF));
                case I16 -> slots.set(JAVA_SHORT, slot, (short) integer(arg, k, Short.MIN_VALUE, Short.MAX_VALUE));
                case U16 -> slots.set(JAVA_SHORT, slot, (short) integer(arg, k, 0, 0xFFFF));
                case I32 -> slots.set(JAVA_INT, slot, (int) integer(arg, k, Integer.MIN_VALUE, Integer.MAX_VALUE));
                case U32 -> slots.set(JAVA_INT, slot, (int) integer(arg, k, 0, 0xFFFF_FFFFL));
                case I64 -> slots.set(JAVA_LONG, slot, integer(arg, k, Long.MIN_VALUE, Long.MAX_VALUE));
                case U64 -> slots.set(JAVA_LONG, slot, checked(Py.PyLong_AsUnsignedLongLongMask(arg)));
                case F16 -> slots.set(JAVA_SHORT, slot, Float.floatToFloat16((float) real(arg)));
                case F32 -> slots.set(JAVA_FLOAT, slot, (float) real(arg));
                case F64 -> slots.set(JAVA_DOUBLE, slot, real(arg));
                case BOOL -> {
                    int truth = Py.PyObject_IsTrue(arg);
                    if (truth < 0) {
                        throw NativeModule.pythonErrorSet();
                    }
                    slots.set(JAVA_BYTE, slot, (byte) truth);
                }
                default -> throw new IllegalStateException("unknown argument kind for argument " + k);
            }
        }
        return tensors;
    }

    private static long streamCid(MemorySegment stream) {
        MemorySegment cid = Py.PyObject_GetAttr(stream, cidName);
        if (cid.address() == 0) {
            Py.PyErr_Clear();
            throw NativeModule.pythonError("PyExc_ValueError",
                    "launch needs a stream from CudaStreamPool.allocate_stream()");
        }
        return longOf(cid);
    }

    /** The kernel's CUfunction on device: the last one launched, else the cache, else gxf.cuda's _function. */
    private static long function(MemorySegment kernel, int device) {
        Function f = last;
        long address = kernel.address();
        if (f != null && f.kernel == address && f.device == device) {
            return f.function;
        }
        long key = address * 31 + device;
        f = FUNCTIONS.get(key);
        if (f == null || f.kernel != address || f.device != device) {
            Py.Py_IncRef(kernel); // the call's tuple takes this reference
            long fn = callHelper(functionOf, kernel, device);
            if (FUNCTIONS.size() >= CACHE_MAX) {
                forgetFunctions();
            }
            Py.Py_IncRef(kernel); // held while cached: its address names no other object meanwhile
            f = new Function(address, device, fn);
            Function replaced = FUNCTIONS.put(key, f);
            if (replaced != null) {
                Py.Py_DecRef(MemorySegment.ofAddress(replaced.kernel));
            }
        }
        last = f;
        return f.function;
    }

    private static void forgetFunctions() {
        last = null;
        for (Long key : FUNCTIONS.keySet()) {
            Function f = FUNCTIONS.remove(key);
            if (f != null) {
                Py.Py_DecRef(MemorySegment.ofAddress(f.kernel));
            }
        }
    }

    private static int kind(MemorySegment arg, int index) {
        long type = typeOf(arg);
        Integer kind = KINDS.get(type);
        if (kind != null) {
            return kind;
        }
        // _argument_kind's TypeError, naming the argument and its type, for one that cannot be passed
        int k = (int) callHelper(argumentKind, Py.PyObject_Type(arg), index);
        if (KINDS.size() < CACHE_MAX && KINDS.putIfAbsent(type, k) == null) {
            Py.Py_IncRef(MemorySegment.ofAddress(type)); // held while cached
        }
        return k;
    }

    private static long typeOf(MemorySegment o) {
        MemorySegment t = Py.PyObject_Type(o);
        Py.Py_DecRefHeld(t); // o itself references its type
        return t.address();
    }

    private static CudaDeviceTensor cudaTensor(MemorySegment tensor, int index) {
        long handle = longOf(attribute(tensor, handleName));
        if (handle == 0) {
            throw NativeModule.pythonError("PyExc_ValueError", "kernel argument " + index
                    + ": the tensor has no memory yet; call reshape() first");
        }
        if (!(Handles.get(handle) instanceof CudaDeviceTensor t)) {
            throw NativeModule.pythonError("PyExc_ValueError", "kernel argument " + index
                    + ": the tensor is not in CUDA memory");
        }
        return t;
    }

    private static long arrayPointer(MemorySegment array) {
        MemorySegment data = attribute(array, dataName);
        try {
            return longOf(attribute(data, ptrName));
        } finally {
            Py.Py_DecRef(data);
        }
    }

    /** A new reference to o's attribute; Python's error set (e.g. AttributeError) where it has none. */
    private static MemorySegment attribute(MemorySegment o, MemorySegment name) {
        MemorySegment v = Py.PyObject_GetAttr(o, name);
        if (v.address() == 0) {
            throw NativeModule.pythonErrorSet();
        }
        return v;
    }

    /** The int value of a new reference, which is released. */
    private static long longOf(MemorySegment value) {
        long v = Py.PyLong_AsLongLong(value);
        Py.Py_DecRef(value);
        return checked(v);
    }

    /** helper(first, second) as an int: first is a new reference, which the call's argument tuple takes. */
    private static long callHelper(MemorySegment helper, MemorySegment first, long second) {
        MemorySegment call = Py.PyTuple_New(2);
        Py.PyTuple_SetItem(call, 0, first);
        Py.PyTuple_SetItem(call, 1, Py.PyLong_FromLongLong(second));
        MemorySegment r = Py.PyObject_CallObject(helper, call);
        Py.Py_DecRef(call);
        if (r.address() == 0) {
            throw NativeModule.pythonErrorSet();
        }
        return longOf(r);
    }

    private static long integer(MemorySegment arg, int index, long min, long max) {
        long v = checked(Py.PyLong_AsLongLong(arg));
        if (v < min || v > max) {
            throw NativeModule.pythonError("PyExc_OverflowError", "kernel argument " + index + ": " + v
                    + " does not fit its type (" + min + " to " + max + ")");
        }
        return v;
    }

    private static double real(MemorySegment arg) {
        double v = Py.PyFloat_AsDouble(arg);
        if (v == -1 && Py.PyErr_Occurred().address() != 0) {
            throw NativeModule.pythonErrorSet();
        }
        return v;
    }

    /** v, unless it is -1 with a Python error set (how the C API's integer conversions fail). */
    private static long checked(long v) {
        if (v == -1 && Py.PyErr_Occurred().address() != 0) {
            throw NativeModule.pythonErrorSet();
        }
        return v;
    }

    /** A grid or block: an int, or a tuple or list of 1 to 3 ints, each 1 to 2^31-1. */
    private static Dim3 dims(MemorySegment o, String what) {
        long type = typeOf(o);
        boolean tuple = type == tupleType.address(), list = type == listType.address();
        long[] d = {1, 1, 1};
        if (tuple || list) {
            long n = tuple ? Py.PyTuple_Size(o) : Py.PyList_Size(o);
            if (n < 1 || n > 3) {
                throw NativeModule.pythonError("PyExc_ValueError", what + " has 1 to 3 dimensions, got " + n);
            }
            for (int k = 0; k < n; k++) {
                d[k] = dimension(tuple ? Py.PyTuple_GetItem(o, k) : Py.PyList_GetItem(o, k), what);
            }
        } else {
            d[0] = dimension(o, what);
        }
        return new Dim3((int) d[0], (int) d[1], (int) d[2]);
    }

    private static long dimension(MemorySegment o, String what) {
        long v = Py.PyLong_AsLongLong(o);
        if (v == -1 && Py.PyErr_Occurred().address() != 0) {
            Py.PyErr_Clear();
            throw NativeModule.pythonError("PyExc_TypeError", what + " must be an int or a tuple of 1 to 3 ints");
        }
        if (v < 1 || v > Integer.MAX_VALUE) {
            throw NativeModule.pythonError("PyExc_ValueError", what + " dimensions must be 1 to 2^31-1, got " + v);
        }
        return v;
    }
}
