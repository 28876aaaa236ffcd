package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import io.jkompute.cuda.internal.ArrayLayout;
import io.jkompute.cuda.internal.DLPack;
import io.jkompute.cuda.internal.Driver;
import io.jkompute.cuda.internal.ReductionKernel;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * An n-dimensional array in device memory, numpy/CuPy style (PyGPU's {@code GPUArray}): {@link #toGpu} sends host
 * data, {@link #get()} brings it back, {@link #slice}/{@link #at}/{@link #reshape} make views that share memory,
 * {@link #copy()} makes a compact copy on the device, {@link #ptr()} is the device address to hand a kernel, and
 * {@link #toDlpack()}/{@link #fromDlpack} exchange arrays with other CUDA libraries without copying.
 * <p>
 * Array math follows numpy: element-wise methods ({@link ArrayLike}) build a lazy {@link Expr} that evaluates as one
 * fused kernel; reductions ({@link #sum}, {@link #max}, ...), {@link #matmul} and the constructors ({@link #arange},
 * {@link #linspace}) queue their kernels and return the result array without waiting.
 * <p>
 * Closing the array that allocated the memory frees it (once no DLPack export still uses it); views become
 * unusable then. Closing a view does nothing.
 */
@SuppressWarnings("restricted") // FFM: binding native code is this class's purpose
public final class GpuArray implements AutoCloseable, ArrayLike {
    private final DeviceMemory memory;
    private final DType dtype;
    private final ArrayLayout layout;
    private final boolean owner;

    private GpuArray(DeviceMemory memory, DType dtype, ArrayLayout layout, boolean owner) {
        this.memory = memory;
        this.dtype = dtype;
        this.layout = layout;
        this.owner = owner;
    }

    /** A new array of {@code shape} and {@code dtype} on the calling thread's device, contents undefined. */
    public GpuArray(long[] shape, DType dtype) {
        this(shape, dtype, 'C');
    }

    /** A new array in {@code order} ('C' row-major or 'F' column-major), contents undefined. */
    public GpuArray(long[] shape, DType dtype, char order) {
        this(DeviceMemory.allocate(Math.max(1, Math.multiplyExact(ArrayLayout.of(order, shape).size(), dtype.byteSize()))),
                dtype, ArrayLayout.of(order, shape), true);
    }

    /** A result array from the memory pool on {@code device} (array math's outputs). */
    static GpuArray pooled(int device, DType dtype, long[] shape, char order) {
        ArrayLayout l = ArrayLayout.of(order, shape);
        long bytes = Math.max(1, Math.multiplyExact(l.size(), dtype.byteSize()));
        return onDevice(device, () -> new GpuArray(MemoryPool.allocate(bytes), dtype, l, true));
    }

    static GpuArray pooled(int device, DType dtype, long[] shape) {
        return pooled(device, dtype, shape, 'C');
    }

    /** Runs {@code make} with {@code device} as the calling thread's device. */
    static <T> T onDevice(int device, Supplier<T> make) {
        int before = Cuda.getDevice();
        if (before == device) return make.get();
        Cuda.setDevice(device);
        try {
            return make.get();
        } finally {
            Cuda.setDevice(before);
        }
    }

    private static final ConcurrentHashMap<Integer, Integer> SMS = new ConcurrentHashMap<>();

    static int multiprocessors(int device) {
        return SMS.computeIfAbsent(device, d -> Cuda.device(d).multiprocessorCount());
    }

    private static final ConcurrentHashMap<Integer, Integer> CAPABILITY = new ConcurrentHashMap<>();

    /** The device's compute capability as major x 10 + minor (90 for Hopper), read once. */
    static int capability(int device) {
        return CAPABILITY.computeIfAbsent(device, d -> {
            CudaDevice c = Cuda.device(d);
            return c.computeCapabilityMajor() * 10 + c.computeCapabilityMinor();
        });
    }

    /** An array that owns {@code memory} (imported or mapped memory), C-contiguous from its start. */
    static GpuArray over(DeviceMemory memory, DType dtype, long... shape) {
        ArrayLayout l = ArrayLayout.contiguous(shape);
        if (l.size() * dtype.byteSize() > memory.byteSize()) {
            throw new IllegalArgumentException(dtype + " " + Arrays.toString(shape) + " does not fit " + memory.byteSize() + " bytes");
        }
        return new GpuArray(memory, dtype, l, true);
    }

    /** A new array of {@code shape}, contents undefined. */
    public static GpuArray empty(DType dtype, long... shape) {
        return new GpuArray(shape, dtype);
    }

    /** A new array of {@code shape} filled with zeros. */
    public static GpuArray zeros(DType dtype, long... shape) {
        GpuArray a = new GpuArray(shape, dtype);
        a.memory.memset((byte) 0);
        return a;
    }

    /** A new array of {@code shape} in {@code order} ('C' or 'F') filled with zeros. */
    public static GpuArray zeros(DType dtype, char order, long... shape) {
        GpuArray a = new GpuArray(shape, dtype, order);
        a.memory.memset((byte) 0);
        return a;
    }

    /**
     * numpy's {@code zeros_like}: zeros of this array's shape and dtype (C order, or F when this is F-contiguous only).
     */
    public GpuArray zerosLike() {
        char order = !isContiguous() && layout.isFortranContiguous() ? 'F' : 'C';
        return onDevice(device(), () -> zeros(dtype, order, layout.shape()));
    }

    /** numpy's {@code empty_like}. */
    public GpuArray emptyLike() {
        char order = !isContiguous() && layout.isFortranContiguous() ? 'F' : 'C';
        return onDevice(device(), () -> new GpuArray(layout.shape(), dtype, order));
    }

    /** numpy's {@code arange(start, stop, step)} as {@code dtype}: {@code ceil((stop - start) / step)} elements. */
    public static GpuArray arange(double start, double stop, double step, DType dtype) {
        if (step == 0 || Double.isNaN(step)) throw new IllegalArgumentException("arange step must be non-zero");
        long n = Math.max(0, (long) Math.ceil((stop - start) / step));
        return ArrayMath.ramp(n, start, step, dtype);
    }

    /** numpy's {@code arange(stop)}: int64 0, 1, ..., stop-1. */
    public static GpuArray arange(long stop) {
        return ArrayMath.ramp(Math.max(0, stop), 0, 1, DType.INT64);
    }

    /** numpy's {@code linspace(start, stop, num, endpoint=True)} as float64. */
    public static GpuArray linspace(double start, double stop, long num) {
        return linspace(start, stop, num, DType.FLOAT64);
    }

    /** numpy's {@code linspace(start, stop, num)} as {@code dtype} (computed in float64, then converted). */
    public static GpuArray linspace(double start, double stop, long num, DType dtype) {
        if (num < 0) throw new IllegalArgumentException("number of samples, " + num + ", must be non-negative");
        double step = num > 1 ? (stop - start) / (num - 1) : 0;
        return ArrayMath.linspace(num, start, stop, step, dtype);
    }

    /** Sends {@code data} to the device as float32, shaped {@code shape} (1-D when omitted). */
    public static GpuArray toGpu(float[] data, long... shape) {
        return toGpu(data, DType.FLOAT32, shape);
    }

    /** Sends {@code data} to the device as float64. */
    public static GpuArray toGpu(double[] data, long... shape) {
        return toGpu(data, DType.FLOAT64, shape);
    }

    /** Sends {@code data} to the device as int32. */
    public static GpuArray toGpu(int[] data, long... shape) {
        return toGpu(data, DType.INT32, shape);
    }

    /** Sends {@code data} to the device as int64. */
    public static GpuArray toGpu(long[] data, long... shape) {
        return toGpu(data, DType.INT64, shape);
    }

    /** Sends {@code data} to the device as int16. */
    public static GpuArray toGpu(short[] data, long... shape) {
        return toGpu(data, DType.INT16, shape);
    }

    /**
     * Sends a Java array to the device as {@code dtype}; the array type must be {@code dtype}'s carrier (e.g.
     * {@code int[]} for uint32, {@code float[]} of interleaved pairs for complex64).
     */
    public static GpuArray toGpu(Object javaArray, DType dtype, long... shape) {
        MemorySegment host = carrierSegment(javaArray, dtype);
        return toGpu(host, dtype, shape.length == 0 ? new long[] {host.byteSize() / dtype.byteSize()} : shape);
    }

    /**
     * Sends the bytes of {@code host} (heap or native) to the device as an array of {@code dtype} and {@code shape}.
     */
    public static GpuArray toGpu(MemorySegment host, DType dtype, long... shape) {
        long[] s = shape.length == 0 ? new long[] {host.byteSize() / dtype.byteSize()} : shape;
        ArrayLayout l = ArrayLayout.contiguous(s);
        long bytes = Math.multiplyExact(l.size(), dtype.byteSize());
        if (bytes != host.byteSize()) {
            throw new IllegalArgumentException("host data has " + host.byteSize() + " bytes but " + dtype + " "
                    + Arrays.toString(s) + " needs " + bytes);
        }
        GpuArray a = new GpuArray(s, dtype);
        if (bytes > 0) a.memory.copyFromHost(host);
        return a;
    }

    static MemorySegment carrierSegment(Object javaArray, DType dtype) {
        DType carrierType = DType.ofCarrier(javaArray);
        if (dtype.carrier() != javaArray.getClass()) {
            throw new IllegalArgumentException(dtype + " is carried by " + dtype.carrier().getSimpleName() + ", not "
                    + javaArray.getClass().getSimpleName());
        }
        if (Array.getLength(javaArray) % dtype.carrierElementsPerElement() != 0) {
            throw new IllegalArgumentException(dtype + " needs an even number of " + carrierType + " values (real, imaginary pairs)");
        }
        return switch (javaArray) {
            case byte[] x -> MemorySegment.ofArray(x);
            case short[] x -> MemorySegment.ofArray(x);
            case int[] x -> MemorySegment.ofArray(x);
            case long[] x -> MemorySegment.ofArray(x);
            case float[] x -> MemorySegment.ofArray(x);
            case double[] x -> MemorySegment.ofArray(x);
            default -> throw new IllegalArgumentException("not a primitive numeric array");
        };
    }

    /**
     * The device memory of a jkompute Vulkan tensor (made with {@link io.jkompute.Manager#exportableTensor}) as a
     * GpuArray, without a copy: the Vulkan device is matched to the CUDA device by UUID, the tensor's memory is
     * exported as an opaque fd and imported with {@code cuImportExternalMemory}. Closing the array releases the
     * import; the tensor must stay open meanwhile. Neither API waits for the other: finish Vulkan work before CUDA
     * touches the bytes ({@code Sequence.eval}) and CUDA work before Vulkan does ({@link Cuda#synchronize()}).
     */
    public static GpuArray fromTensor(io.jkompute.Tensor tensor) {
        java.nio.ByteBuffer u = java.nio.ByteBuffer.wrap(tensor.manager().deviceProperties().deviceUuid());
        int dev = Cuda.deviceWithUuid(new java.util.UUID(u.getLong(0), u.getLong(8)));
        DType dtype = DType.of(tensor.dataType());
        io.jkompute.ExternalMemory exported = tensor.exportMemory();
        int before = Cuda.getDevice();
        Cuda.setDevice(dev);
        try {
            ImportedMemory imported = ImportedMemory.of(exported);
            try {
                DeviceMemory mapped = imported.mapBuffer(exported.offset(), exported.byteSize());
                DeviceMemory owner = DeviceMemory.foreign(dev, mapped.address(), mapped.byteSize(), "CUDA view of " + tensor, () -> {
                    imported.close();
                    java.lang.ref.Reference.reachabilityFence(tensor); // the Vulkan memory must outlive the import
                });
                return over(owner, dtype, tensor.shape());
            } catch (RuntimeException e) {
                imported.close();
                throw e;
            }
        } finally {
            Cuda.setDevice(before);
        }
    }

    // ---- properties --------------------------------------------------------------------------------------

    /** The element type. */
    public DType dtype() {
        return dtype;
    }

    /** The shape, a copy (empty for a 0-d array). */
    public long[] shape() {
        return layout.shape();
    }

    /** Strides in bytes, numpy's convention (DLPack's are in elements; {@link #toDlpack()} converts). */
    public long[] strides() {
        long[] s = layout.strides();
        for (int i = 0; i < s.length; i++) s[i] *= dtype.byteSize();
        return s;
    }

    /** Number of elements. */
    public long size() {
        return layout.size();
    }

    /** The number of dimensions (0 for a 0-d array). */
    public int ndim() {
        return layout.ndim();
    }

    /** Bytes the elements take (size × element size). */
    public long nbytes() {
        return size() * dtype.byteSize();
    }

    /** The device address of the first element, as a long (PyGPU's {@code ptr}); what a kernel argument takes. */
    public long ptr() {
        return memory.address() + layout.offset() * dtype.byteSize();
    }

    /** The device that holds the memory. */
    public int device() {
        return memory.device();
    }

    /** Whether the elements are dense in C order. */
    public boolean isContiguous() {
        return layout.isContiguous();
    }

    /** Whether the elements are dense in Fortran (column-major) order. */
    public boolean isFortranContiguous() {
        return layout.isFortranContiguous();
    }

    ArrayLayout layout() {
        return layout;
    }

    DeviceMemory memory() {
        return memory;
    }

    /** Whether this array and {@code other} are views of the same memory. */
    boolean sharesMemory(GpuArray other) {
        return memory == other.memory;
    }

    @Override
    public Expr expr() {
        memory.checkOpen();
        return Expr.of(this);
    }

    /** Writes {@code e}'s result into this array (numpy's {@code a[...] = e}; e.g. {@code a.assign(a.mul(2))}). */
    public GpuArray assign(ArrayLike e) {
        e.expr().evalInto(this);
        return this;
    }

    /** In place {@code a += b}. */
    public GpuArray iadd(ArrayLike b) {
        return assign(add(b));
    }

    /** In place {@code a *= b}. */
    public GpuArray imul(ArrayLike b) {
        return assign(mul(b));
    }

    /** In place {@code a *= s}. */
    public GpuArray imul(double s) {
        return assign(mul(s));
    }

    /**
     * numpy's {@code __cuda_array_interface__} (version 3) for this array, as the dict's entries: {@code shape},
     * {@code typestr} (e.g. {@code "<f4"}), {@code data} ({@code [pointer, readOnly]}), {@code strides} (bytes; null
     * when C-contiguous), {@code version}, {@code stream} ({@code 1}: the legacy default stream, which orders the
     * consumer after work queued here).
     */
    public java.util.Map<String, Object> cudaArrayInterface() {
        memory.checkOpen();
        java.util.LinkedHashMap<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("shape", java.util.Arrays.stream(shape()).boxed().toList());
        m.put("typestr", typestr(dtype));
        m.put("data", java.util.List.of(ptr(), false));
        m.put("strides", isContiguous() ? null : java.util.Arrays.stream(strides()).boxed().toList());
        m.put("version", 3);
        m.put("stream", 1L);
        return m;
    }

    /** numpy's array-interface type string of {@code t} (little-endian). */
    static String typestr(DType t) {
        return switch (t) {
            case BOOL -> "|b1";
            case INT8 -> "|i1";
            case UINT8 -> "|u1";
            case BFLOAT16 -> "<V2"; // numpy has no bfloat16: an opaque 2-byte type, as CuPy and PyTorch describe it
            default -> "<" + (t.isComplex() ? "c" : t.isFloatingPoint() ? "f" : t.isUnsigned() ? "u" : "i") + t.byteSize();
        };
    }

    /** Whether this array is a view on memory another array owns. */
    public boolean isView() {
        return !owner;
    }

    // ---- views ----------------------------------------------------------------------------------------------

    /** {@code a[i]}: the sub-array at index {@code i} of the first dimension (a view). */
    public GpuArray at(long i) {
        memory.checkOpen();
        return view(layout.index(0, i));
    }

    /** {@code a[s0, s1, ...]}: a view; missing trailing entries mean "all". */
    public GpuArray slice(Slice... slices) {
        memory.checkOpen();
        if (slices.length > layout.ndim()) {
            throw new IndexOutOfBoundsException("too many indices: " + slices.length + " for an array of " + layout.ndim() + " dimensions");
        }
        ArrayLayout l = layout;
        int dim = 0;
        for (Slice s : slices) {
            if (s.single) {
                l = l.index(dim, s.start);
            } else {
                l = l.slice(dim, s.start, s.stop, s.step);
                dim++;
            }
        }
        return view(l);
    }

    /**
     * The same elements in a new shape (one dimension may be -1), read in C order: a view when the strides allow it
     * (always for a contiguous array), else a new C-contiguous copy, as numpy and CuPy do. {@link #isView()} tells
     * which.
     */
    public GpuArray reshape(long... shape) {
        return reshape('C', shape);
    }

    /**
     * numpy's {@code reshape(shape, order)}: elements read and placed in {@code order} ('C' or 'F'); a view when
     * possible, else a copy in that order.
     */
    public GpuArray reshape(char order, long... shape) {
        memory.checkOpen();
        ArrayLayout v = layout.reshapeView(order, shape);
        if (v != null) return view(v);
        long[] s = layout.resolveShape(shape);
        try (GpuArray c = copy(order)) {
            ArrayLayout l = c.layout.reshapeView(order, s);
            // the copy owns its memory: hand it over to a new owner of the reshaped layout
            return c.transfer(l);
        }
    }

    /** Moves ownership of this array's memory to a new array of layout {@code l}; this one becomes a view. */
    private GpuArray transfer(ArrayLayout l) {
        GpuArray a = new GpuArray(memory, dtype, l, true);
        transferred = true;
        return a;
    }

    private boolean transferred;

    /** numpy's {@code transpose()}: the axes reversed, a view ({@code a.T}). */
    public GpuArray transpose() {
        memory.checkOpen();
        return view(layout.transpose());
    }

    /** numpy's {@code transpose(axes)}: a view with the axes permuted. */
    public GpuArray transpose(int... axes) {
        memory.checkOpen();
        return view(layout.permute(axes));
    }

    /** numpy's {@code broadcast_to}: a read-only-in-spirit view with stride-0 dimensions. */
    public GpuArray broadcastTo(long... shape) {
        memory.checkOpen();
        return view(layout.broadcastTo(shape));
    }

    /**
     * numpy's {@code a.view(dtype).reshape(shape)} for a contiguous array: the bytes from this array's first element
     * seen as a C-contiguous array of {@code dtype} and {@code shape}, sharing the memory (a view: closing it does
     * nothing). The new array must fit in the bytes this array covers, and its first element must be aligned for
     * {@code dtype}. E.g. a float32 tensor over the start of a pooled uint8 block.
     */
    public GpuArray view(DType dtype, long... shape) {
        memory.checkOpen();
        if (!layout.isContiguous()) {
            throw new IllegalArgumentException("view(dtype, shape) needs a contiguous array; this one has strides "
                    + Arrays.toString(strides()));
        }
        long startByte = layout.offset() * this.dtype.byteSize();
        if (startByte % dtype.byteSize() != 0) {
            throw new IllegalArgumentException("the array starts at byte " + startByte + ", not aligned for " + dtype);
        }
        ArrayLayout l = ArrayLayout.contiguous(shape);
        long bytes = Math.multiplyExact(l.size(), dtype.byteSize());
        if (bytes > nbytes()) {
            throw new IllegalArgumentException(dtype + " " + Arrays.toString(shape) + " needs " + bytes
                    + " bytes; the array has " + nbytes());
        }
        return new GpuArray(memory, dtype, new ArrayLayout(l.shape(), l.strides(), startByte / dtype.byteSize()), false);
    }

    private GpuArray view(ArrayLayout l) {
        return new GpuArray(memory, dtype, l, false);
    }

    // ---- data movement ------------------------------------------------------------------------------------

    /** A new C-contiguous array with a copy of these elements, made on the device. */
    public GpuArray copy() {
        return copy('C');
    }

    /** A new array in {@code order} ('C' or 'F') with a copy of these elements, made on the device. */
    public GpuArray copy(char order) {
        GpuArray dst = withCurrentDevice(() -> new GpuArray(layout.shape(), dtype, order));
        try {
            dst.copyFrom(this);
            return dst;
        } catch (RuntimeException e) {
            dst.close();
            throw e;
        }
    }

    private GpuArray withCurrentDevice(Supplier<GpuArray> make) {
        int before = Cuda.getDevice();
        if (before == device()) return make.get();
        Cuda.setDevice(device());
        try {
            return make.get();
        } finally {
            Cuda.setDevice(before);
        }
    }

    /** Copies {@code src}'s elements (same shape and dtype, any strides) into this array, on the device. */
    public void copyFrom(GpuArray src) {
        if (src.dtype != dtype) throw new IllegalArgumentException("dtype differs: " + src.dtype + " into " + dtype);
        if (!Arrays.equals(src.layout.shape(), layout.shape())) {
            throw new IllegalArgumentException("shape differs: " + Arrays.toString(src.shape()) + " into " + Arrays.toString(shape()));
        }
        src.memory.checkOpen();
        if (!src.layout.hasPositiveStrides() || !layout.hasPositiveStrides()) {
            // negative or zero strides: 2D copies cannot express them, a generated copy kernel can
            if (dtype.byteSize() > 8) throw new UnsupportedOperationException("copying " + dtype + " views with negative or zero strides");
            kernelCopy(src);
            return;
        }
        ArrayLayout.CopyPlan plan = ArrayLayout.copyPlan(src.layout, layout, dtype.byteSize());
        if (plan.count() > 16 && plan.width() <= 64 && dtype.byteSize() <= 8 && Nvrtc.isAvailable()) {
            // many narrow 2D copies (a transpose, an F/C conversion): one generated copy kernel is far faster
            kernelCopy(src);
            return;
        }
        long sBase = src.memory.address(), dBase = memory.address();
        if (plan.count() == 1 && plan.height() == 1) {
            long dst = dBase + plan.dstBase(), from = sBase + plan.srcBase(), bytes = plan.width();
            memory.bind();
            Cuda.check(Driver.memcpyDtoD(dst, from, bytes), "cuMemcpyDtoD");
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment d = arena.allocate(Driver.Memcpy2D.SIZE, 8);
            d.set(JAVA_INT, Driver.Memcpy2D.SRC_MEMORY_TYPE, Driver.Memcpy2D.DEVICE);
            d.set(JAVA_INT, Driver.Memcpy2D.DST_MEMORY_TYPE, Driver.Memcpy2D.DEVICE);
            d.set(JAVA_LONG, Driver.Memcpy2D.SRC_PITCH, plan.srcPitch());
            d.set(JAVA_LONG, Driver.Memcpy2D.DST_PITCH, plan.dstPitch());
            d.set(JAVA_LONG, Driver.Memcpy2D.WIDTH, plan.width());
            d.set(JAVA_LONG, Driver.Memcpy2D.HEIGHT, plan.height());
            plan.forEach((so, dof) -> {
                d.set(JAVA_LONG, Driver.Memcpy2D.SRC_DEVICE, sBase + so);
                d.set(JAVA_LONG, Driver.Memcpy2D.DST_DEVICE, dBase + dof);
                memory.bind(); // per copy: the lambda and the descriptor writes run Java code between copies
                Cuda.check(Driver.memcpy2D(d), "cuMemcpy2D");
            });
        }
    }

    /**
     * Copies {@code src} into this array with a generated kernel, element bits moved as unsigned integers of the
     * same size (so float16 NaN payloads and non-0/1 bool bytes survive), and waits, like the 2D-copy path.
     */
    private void kernelCopy(GpuArray src) {
        DType raw = switch (dtype.byteSize()) {
            case 1 -> DType.UINT8;
            case 2 -> DType.UINT16;
            case 4 -> DType.UINT32;
            default -> DType.UINT64;
        };
        new GpuArray(src.memory, raw, src.layout, false).expr().evalInto(new GpuArray(memory, raw, layout, false));
        memory.bind();
        Cuda.check(Driver.ctxSynchronize(), "cuCtxSynchronize");
    }

    /** Copies host data (same number of bytes as this array's elements, C order) into this array or view. */
    public void set(MemorySegment host) {
        if (host.byteSize() != nbytes()) {
            throw new IllegalArgumentException("host data has " + host.byteSize() + " bytes, array needs " + nbytes());
        }
        if (nbytes() == 0) return;
        if (isContiguous()) {
            memory.bind();
            DeviceMemory.htod(ptr(), host, nbytes());
            return;
        }
        try (GpuArray tmp = withCurrentDevice(() -> new GpuArray(layout.shape(), dtype))) {
            tmp.set(host);
            copyFrom(tmp);
        }
    }

    /** Copies a Java array (this dtype's carrier) into this array or view. */
    public void set(Object javaArray) {
        set(carrierSegment(javaArray, dtype));
    }

    /** Queues a copy of pinned/native {@code host} into this contiguous array on {@code stream}. */
    public void set(MemorySegment host, Stream stream) {
        requireContiguous("asynchronous set");
        if (host.byteSize() != nbytes()) {
            throw new IllegalArgumentException("host data has " + host.byteSize() + " bytes, array needs " + nbytes());
        }
        memory.copyFromHostAsync(host, ptr() - memory.address(), stream);
    }

    /** Copies the elements (C order) into {@code host}, which must have exactly {@link #nbytes()} bytes. */
    public void get(MemorySegment host) {
        if (host.byteSize() != nbytes()) {
            throw new IllegalArgumentException("host buffer has " + host.byteSize() + " bytes, array has " + nbytes());
        }
        if (nbytes() == 0) return;
        if (isContiguous()) {
            memory.bind();
            DeviceMemory.dtoh(host, ptr(), nbytes());
            return;
        }
        try (GpuArray tmp = copy()) {
            tmp.get(host);
        }
    }

    /** Queues a copy of this contiguous array into pinned/native {@code host} on {@code stream}. */
    public void get(MemorySegment host, Stream stream) {
        requireContiguous("asynchronous get");
        if (host.byteSize() != nbytes()) {
            throw new IllegalArgumentException("host buffer has " + host.byteSize() + " bytes, array has " + nbytes());
        }
        memory.copyToHostAsync(ptr() - memory.address(), host, stream);
    }

    /** Copies the elements into a Java array of this dtype's carrier type ({@code float[]} for float32, ...). */
    public void get(Object javaArray) {
        get(carrierSegment(javaArray, dtype));
    }

    /** The elements in a new Java array of this dtype's carrier type, e.g. {@code (float[]) a.get()}. */
    public Object get() {
        long n = Math.multiplyExact(size(), dtype.carrierElementsPerElement());
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(size() + " elements do not fit a Java array; use get(MemorySegment)");
        }
        Object out = Array.newInstance(dtype.carrier().componentType(), (int) n);
        get(out);
        return out;
    }

    /** The elements as float[] (float32 or interleaved complex64). */
    public float[] toFloatArray() {
        return (float[]) getAs(float[].class);
    }

    /** The elements as double[] (float64 or interleaved complex128). */
    public double[] toDoubleArray() {
        return (double[]) getAs(double[].class);
    }

    /** The elements as int[] (int32 or uint32 bits). */
    public int[] toIntArray() {
        return (int[]) getAs(int[].class);
    }

    /** The elements as long[] (int64 or uint64 bits). */
    public long[] toLongArray() {
        return (long[]) getAs(long[].class);
    }

    /** The elements as short[] (int16, uint16 bits or float16 bits). */
    public short[] toShortArray() {
        return (short[]) getAs(short[].class);
    }

    private Object getAs(Class<?> type) {
        if (dtype.carrier() != type) {
            throw new IllegalArgumentException(dtype + " is carried by " + dtype.carrier().getSimpleName() + ", not " + type.getSimpleName());
        }
        return get();
    }

    /** Sets every element to {@code value} (converted to the dtype; complex: real part, imaginary 0). */
    public GpuArray fill(double value) {
        return fill(element(dtype, value, 0));
    }

    /** Sets every element to {@code value}, a boolean for a bool array (1 or 0 for numbers). */
    public GpuArray fill(boolean value) {
        return fill(value ? 1L : 0L);
    }

    /** Sets every element to the integer {@code value} (converted to the dtype). */
    public GpuArray fill(long value) {
        if (dtype.isFloatingPoint()) return fill((double) value);
        return fill(element(dtype, value));
    }

    /** Sets every element of a complex array to {@code re + im·i}. */
    public GpuArray fill(double re, double im) {
        if (!dtype.isComplex()) throw new IllegalArgumentException("fill(re, im) needs a complex dtype, not " + dtype);
        return fill(element(dtype, re, im));
    }

    private GpuArray fill(MemorySegment pattern) {
        if (size() == 0) return this;
        if (!isContiguous()) {
            try (GpuArray tmp = withCurrentDevice(() -> new GpuArray(layout.shape(), dtype))) {
                tmp.fill(pattern);
                copyFrom(tmp);
            }
            return this;
        }
        // every argument is read before bind(): the first read of a layout builds its VarHandle, which can block on
        // a contended lock and so move a virtual thread to another carrier thread, where the bind would be lost
        long p = ptr(), n = size();
        switch (dtype.byteSize()) {
            case 1 -> {
                byte v = pattern.get(JAVA_BYTE, 0);
                memory.bind();
                Cuda.check(Driver.memsetD8(p, v, n, null), "cuMemsetD8");
            }
            case 2 -> {
                short v = pattern.get(JAVA_SHORT_UNALIGNED, 0);
                memory.bind();
                Cuda.check(Driver.memsetD16(p, v, n, null), "cuMemsetD16");
            }
            case 4 -> {
                int v = pattern.get(JAVA_INT_UNALIGNED, 0);
                memory.bind();
                Cuda.check(Driver.memsetD32(p, v, n, null), "cuMemsetD32");
            }
            default -> {
                // no 64/128-bit memset in the driver: write one element, then double the filled prefix on the device
                long e = dtype.byteSize();
                memory.bind();
                DeviceMemory.htod(p, pattern, e);
                for (long done = 1; done < n; done *= 2) {
                    long k = Math.min(done, n - done);
                    memory.bind();
                    Cuda.check(Driver.memcpyDtoD(p + done * e, p, k * e), "cuMemcpyDtoD");
                }
            }
        }
        return this;
    }

    /** One element of {@code dtype} holding {@code re (+ im·i)}, as bytes. */
    static MemorySegment element(DType dtype, double re, double im) {
        MemorySegment m = MemorySegment.ofArray(new long[2]).asSlice(0, dtype.byteSize());
        switch (dtype) {
            case FLOAT16 -> m.set(JAVA_SHORT_UNALIGNED, 0, Float.floatToFloat16((float) re));
            case BFLOAT16 -> m.set(JAVA_SHORT_UNALIGNED, 0, (short) io.jkompute.cuda.internal.ElementwiseKernel.bf16Bits((float) re));
            case BOOL -> m.set(JAVA_BYTE, 0, (byte) (re != 0 ? 1 : 0));
            case FLOAT32 -> m.set(JAVA_FLOAT, 0, (float) re);
            case FLOAT64 -> m.set(JAVA_DOUBLE, 0, re);
            case COMPLEX64 -> {
                m.set(JAVA_FLOAT, 0, (float) re);
                m.set(JAVA_FLOAT, 4, (float) im);
            }
            case COMPLEX128 -> {
                m.set(JAVA_DOUBLE, 0, re);
                m.set(JAVA_DOUBLE, 8, im);
            }
            default -> {
                if (re != Math.rint(re) || Double.isInfinite(re)) {
                    throw new IllegalArgumentException(re + " is not an integer; " + dtype + " needs fill(long)");
                }
                // (long) saturates at 2^63 - 1: a uint64 value of 2^63 or more is converted through its unsigned bits
                if (dtype == DType.UINT64 && re >= 0x1p63) {
                    if (re >= 0x1p64) throw new IllegalArgumentException(re + " is out of range for uint64");
                    return element(dtype, (long) (re - 0x1p63) ^ Long.MIN_VALUE);
                }
                return element(dtype, (long) re);
            }
        }
        return m;
    }

    /** One element of integer {@code dtype} holding the low bits of {@code v} (bool: 1 for any non-zero). */
    static MemorySegment element(DType dtype, long v) {
        if (dtype == DType.BOOL) v = v != 0 ? 1 : 0;
        MemorySegment m = MemorySegment.ofArray(new long[1]).asSlice(0, dtype.byteSize());
        switch (dtype.byteSize()) {
            case 1 -> m.set(JAVA_BYTE, 0, (byte) v);
            case 2 -> m.set(JAVA_SHORT_UNALIGNED, 0, (short) v);
            case 4 -> m.set(JAVA_INT_UNALIGNED, 0, (int) v);
            default -> m.set(JAVA_LONG, 0, v);
        }
        return m;
    }

    private void requireContiguous(String what) {
        if (!isContiguous()) throw new IllegalStateException(what + " needs a contiguous array; copy() the view first");
    }

    // ---- reductions, products, joins -----------------------------------------------------------------------

    /** Sum over all elements (numpy's accumulator: small integers sum as int64/uint64). A 0-d array. */
    public GpuArray sum(int... axes) {
        return reduce(ReductionKernel.Op.SUM, axes, false);
    }

    /** Sum along {@code axes} keeping them as size-1 dimensions ({@code keepdims=True}). */
    public GpuArray sumKeepDims(int... axes) {
        return reduce(ReductionKernel.Op.SUM, axes, true);
    }

    /** Product along {@code axes} (all when none), with numpy's accumulator type. A new array. */
    public GpuArray prod(int... axes) {
        return reduce(ReductionKernel.Op.PROD, axes, false);
    }

    /** Mean along {@code axes} (all when none): float64 for integer input, as numpy. */
    public GpuArray mean(int... axes) {
        return reduce(ReductionKernel.Op.MEAN, axes, false);
    }

    /** Minimum along {@code axes} (NaN propagates); throws for an empty reduction, as numpy. */
    public GpuArray min(int... axes) {
        return reduce(ReductionKernel.Op.MIN, axes, false);
    }

    /** Maximum along {@code axes} (NaN propagates); throws for an empty reduction, as numpy. */
    public GpuArray max(int... axes) {
        return reduce(ReductionKernel.Op.MAX, axes, false);
    }

    /** Index of the first minimum over the flattened array (no axis) or along one axis; int64. */
    public GpuArray argmin(int... axis) {
        return reduce(ReductionKernel.Op.ARGMIN, axis, false);
    }

    /** Index of the first maximum over the flattened array (no axis) or along one axis; int64. */
    public GpuArray argmax(int... axis) {
        return reduce(ReductionKernel.Op.ARGMAX, axis, false);
    }

    /** Whether any element along {@code axes} (all when none) is non-zero; bool. */
    public GpuArray any(int... axes) {
        return reduce(ReductionKernel.Op.ANY, axes, false);
    }

    /** Whether every element along {@code axes} (all when none) is non-zero; bool. */
    public GpuArray all(int... axes) {
        return reduce(ReductionKernel.Op.ALL, axes, false);
    }

    /**
     * A reduction queued on {@code stream} (null: the default stream), along {@code axes} (none: all), keeping the
     * reduced axes as size-1 dimensions when {@code keepDims}; returns at once, the result stays on the device.
     */
    public GpuArray reduce(Reduction op, Stream stream, boolean keepDims, int... axes) {
        return reduce(ReductionKernel.Op.valueOf(op.name()), axes, keepDims, stream);
    }

    GpuArray reduce(ReductionKernel.Op op, int[] axes, boolean keepDims, Stream stream) {
        memory.checkOpen();
        return ArrayMath.reduce(this, op, axes, keepDims, stream);
    }

    private GpuArray reduce(ReductionKernel.Op op, int[] axes, boolean keepDims) {
        return reduce(op, axes, keepDims, null);
    }

    /** numpy's {@code matmul} ({@code a @ b}) through cuBLAS: 1-D operands as vectors, leading dimensions batched. */
    public GpuArray matmul(GpuArray b) {
        return matmul(b, null);
    }

    /** {@link #matmul(GpuArray)} queued on {@code stream}. */
    public GpuArray matmul(GpuArray b, Stream stream) {
        memory.checkOpen();
        b.memory.checkOpen();
        if (b.device() != device()) throw new IllegalArgumentException("matmul operands on devices " + device() + " and " + b.device());
        return Matmul.matmul(this, b, stream);
    }

    /** numpy's {@code dot} for 1-D and 2-D operands (the same as {@link #matmul} there). */
    public GpuArray dot(GpuArray b) {
        if (ndim() > 2 || b.ndim() > 2) throw new UnsupportedOperationException("dot of arrays with more than 2 dimensions; use matmul");
        return matmul(b);
    }

    /** numpy's {@code concatenate(arrays, axis)}. */
    public static GpuArray concatenate(int axis, GpuArray... arrays) {
        return ArrayMath.concatenate(axis, arrays);
    }

    /** The single element of a size-1 array, as a double (a device-to-host copy: it waits for the GPU). */
    public double item() {
        if (size() != 1) throw new IllegalStateException("only size-1 arrays can be converted to a scalar, not size " + size());
        MemorySegment m = MemorySegment.ofArray(new long[2]).asSlice(0, dtype.byteSize());
        get(m);
        return switch (dtype) {
            case BOOL, UINT8 -> Byte.toUnsignedInt(m.get(JAVA_BYTE, 0));
            case INT8 -> m.get(JAVA_BYTE, 0);
            case INT16 -> m.get(JAVA_SHORT_UNALIGNED, 0);
            case UINT16 -> Short.toUnsignedInt(m.get(JAVA_SHORT_UNALIGNED, 0));
            case INT32 -> m.get(JAVA_INT, 0);
            case UINT32 -> Integer.toUnsignedLong(m.get(JAVA_INT, 0));
            case INT64 -> m.get(JAVA_LONG, 0);
            case UINT64 -> { long v = m.get(JAVA_LONG, 0); yield v >= 0 ? v : (double) (v >>> 1) * 2 + (v & 1); }
            case FLOAT16 -> Float.float16ToFloat(m.get(JAVA_SHORT_UNALIGNED, 0));
            case BFLOAT16 -> Float.intBitsToFloat(Short.toUnsignedInt(m.get(JAVA_SHORT_UNALIGNED, 0)) << 16);
            case FLOAT32 -> m.get(JAVA_FLOAT, 0);
            case FLOAT64 -> m.get(JAVA_DOUBLE, 0);
            default -> throw new UnsupportedOperationException("item() of " + dtype);
        };
    }

    /** Makes a new owner of this array's memory with {@code view}'s layout; this array stops owning it. */
    GpuArray handOver(GpuArray view) {
        return transfer(view.layout);
    }

    // ---- DLPack -------------------------------------------------------------------------------------------

    private record Export(Arena arena, DeviceMemory memory) {}

    private static final ConcurrentHashMap<Long, Export> EXPORTS = new ConcurrentHashMap<>();

    private static final class Deleter {
        static final MemorySegment STUB;
        static final MethodHandle CALL_FOREIGN = Linker.nativeLinker().downcallHandle(FunctionDescriptor.ofVoid(ADDRESS));

        static {
            try {
                MethodHandle h = MethodHandles.lookup().findStatic(GpuArray.class, "dlpackDeleter",
                        MethodType.methodType(void.class, MemorySegment.class));
                STUB = Linker.nativeLinker().upcallStub(h, FunctionDescriptor.ofVoid(ADDRESS), Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /** Called by a DLPack consumer (any thread) when it no longer needs an exported array. Must not throw. */
    private static void dlpackDeleter(MemorySegment managed) {
        try {
            Export e = EXPORTS.remove(managed.address());
            if (e == null) return;
            e.memory.release();
            e.arena.close();
        } catch (Throwable t) {
            LoggerFactory.getLogger(GpuArray.class).error("DLPack deleter failed", t);
        }
    }

    /** Number of DLPack exports whose consumer has not called the deleter yet. */
    static int liveExports() {
        return EXPORTS.size();
    }

    /**
     * Exports this array as a DLPack {@code DLManagedTensor*} (kDLCUDA, the array's device) for another CUDA
     * library. The memory stays allocated until the consumer calls the tensor's deleter, even if this array is
     * closed first.
     */
    public MemorySegment toDlpack() {
        memory.retain();
        Arena arena = Arena.ofShared();
        try {
            long[] st = layout.strides();
            MemorySegment m = DLPack.write(arena, memory.address(), DLPack.KDL_CUDA, device(), dtype.dlpackCode(),
                    dtype.dlpackBits(), layout.shape(), st, layout.offset() * dtype.byteSize(), Deleter.STUB);
            EXPORTS.put(m.address(), new Export(arena, memory));
            return m;
        } catch (RuntimeException | Error e) {
            arena.close();
            memory.release();
            throw e;
        }
    }

    /**
     * Takes a DLPack {@code DLManagedTensor*} from another CUDA library (kDLCUDA or kDLCUDAManaged memory) as a
     * GpuArray without copying. The array owns the tensor: closing it calls the producer's deleter. If this
     * method throws, ownership stays with the caller.
     */
    public static GpuArray fromDlpack(MemorySegment managedTensor) {
        DLPack.Tensor t = DLPack.read(managedTensor);
        if (t.deviceType() != DLPack.KDL_CUDA && t.deviceType() != DLPack.KDL_CUDA_MANAGED) {
            throw new IllegalArgumentException("DLPack tensor is on device type " + t.deviceType()
                    + ", not CUDA (2) or CUDA managed (13); copy it to a CUDA device first");
        }
        DType dtype = DType.fromDlpack(t.code(), t.bits(), t.lanes());
        if (t.byteOffset() % dtype.byteSize() != 0) {
            throw new IllegalArgumentException("DLPack byte_offset " + t.byteOffset() + " is not a multiple of the element size " + dtype.byteSize());
        }
        // a producer's negative strides reach below its data pointer: our memory starts at the lowest element
        long first = t.byteOffset() / dtype.byteSize(), low = 0;
        long[] tsh = t.shape(), tst = t.strides();
        boolean empty = false;
        for (long d : tsh) if (d == 0) empty = true;
        if (!empty) for (int i = 0; i < tsh.length; i++) if (tst[i] < 0) low += (tsh[i] - 1) * tst[i];
        long shift = Math.min(0, first + low); // elements below data: move the base down
        ArrayLayout layout = new ArrayLayout(tsh, tst, first - shift);
        Cuda.checkDevice(t.deviceId());
        Cuda.context(t.deviceId());
        MemorySegment deleter = DLPack.deleter(managedTensor);
        MemorySegment managed = MemorySegment.ofAddress(managedTensor.address());
        long bytes = Math.max(1, layout.extent() * dtype.byteSize());
        DeviceMemory mem = DeviceMemory.foreign(t.deviceId(), t.data() + shift * dtype.byteSize(), bytes, "DLPack tensor " + Arrays.toString(t.shape()), () -> {
            if (deleter.equals(MemorySegment.NULL)) return;
            try {
                Deleter.CALL_FOREIGN.invokeExact(deleter, managed);
            } catch (Throwable e) {
                throw new IllegalStateException("DLPack deleter failed", e);
            }
        });
        return new GpuArray(mem, dtype, layout, true);
    }

    /** Frees the memory if this array allocated it (once no DLPack export uses it); for a view, does nothing. */
    @Override
    public void close() {
        if (owner && !transferred) memory.close();
    }

    @Override
    public String toString() {
        return "GpuArray(shape=" + Arrays.toString(layout.shape()) + ", dtype=" + dtype + ", device=" + memory.device()
                + (owner ? "" : ", view") + (memory.isClosed() ? ", closed" : "") + ")";
    }
}
