package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jkompute.cuda.internal.Driver;
import io.jkompute.cuda.internal.Leaks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A block of device memory ({@code cuMemAlloc}) with copies to and from host memory and other device memory,
 * synchronous or queued on a {@link Stream}, and memset. All offsets and sizes are in bytes and checked against
 * the block's size before any driver call.
 * <p>
 * The block stays allocated while anything still refers to it: closing it ends this handle, and the memory is
 * freed once no exported view (DLPack) still uses it.
 */
public final class DeviceMemory implements AutoCloseable {
    /** Largest piece of a Java-heap copy: the GC waits while the driver reads a heap array in place. */
    static final long HEAP_CHUNK = 4L << 20;

    private final int device;
    private final MemorySegment ctx;
    private final long address;
    private final long byteSize;
    private final AtomicInteger refs = new AtomicInteger(1);
    private Leaks.Tracked tracked;
    private volatile boolean closed;

    private DeviceMemory(int device, long address, long byteSize) {
        this.device = device;
        this.ctx = Cuda.context(device);
        this.address = address;
        this.byteSize = byteSize;
    }

    /** Allocates {@code bytes} of device memory on the calling thread's device (contents undefined). */
    public static DeviceMemory allocate(long bytes) {
        if (bytes <= 0) throw new IllegalArgumentException("device allocation size must be positive, was " + bytes);
        int dev = Cuda.bindCurrent();
        long p;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            Cuda.check(Driver.memAlloc(out, bytes), "cuMemAlloc(" + bytes + " bytes)");
            p = out.get(JAVA_LONG, 0);
        }
        DeviceMemory m = new DeviceMemory(dev, p, bytes);
        MemorySegment ctx = m.ctx;
        m.tracked = Leaks.track(m, "device memory of " + bytes + " bytes on device " + dev, () -> {
            Driver.ctxSetCurrent(ctx);
            Driver.memFree(p);
        });
        return m;
    }

    /**
     * Wraps memory that something else owns (a DLPack producer, imported external memory); {@code release} runs
     * once, when the last reference goes.
     */
    static DeviceMemory foreign(int device, long address, long byteSize, String what, Runnable release) {
        DeviceMemory m = new DeviceMemory(device, address, byteSize);
        m.tracked = Leaks.track(m, what, release);
        return m;
    }

    /** A pool block: tracked for leaks without a stack trace (one is made per array operation). */
    static DeviceMemory pooled(int device, long address, long byteSize, Runnable release) {
        DeviceMemory m = new DeviceMemory(device, address, byteSize);
        m.tracked = Leaks.trackQuietly(m, "pooled device memory", release);
        return m;
    }

    /** The device this memory is on. */
    public int device() {
        return device;
    }

    /** The device address ({@code CUdeviceptr}). */
    public long address() {
        checkOpen();
        return address;
    }

    /** Size in bytes. */
    public long byteSize() {
        return byteSize;
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    // ---- copies ------------------------------------------------------------------------------------------

    /** Copies all of {@code src} (heap or native) to the start of this block and waits for it. */
    public void copyFromHost(MemorySegment src) {
        copyFromHost(src, 0);
    }

    /** Copies all of {@code src} to {@code offset} in this block and waits for it. */
    public void copyFromHost(MemorySegment src, long offset) {
        checkRange(offset, src.byteSize());
        bind();
        htod(address + offset, src, src.byteSize());
    }

    /** Copies {@code dst.byteSize()} bytes from the start of this block into {@code dst} and waits for it. */
    public void copyToHost(MemorySegment dst) {
        copyToHost(0, dst);
    }

    /** Copies {@code dst.byteSize()} bytes from {@code offset} in this block into {@code dst}. */
    public void copyToHost(long offset, MemorySegment dst) {
        checkRange(offset, dst.byteSize());
        bind();
        dtoh(dst, address + offset, dst.byteSize());
    }

    /**
     * Queues a copy of {@code src} to {@code offset} on {@code stream} and returns at once. {@code src} must be native
     * memory that stays valid until the stream reaches the copy; it overlaps with other work only if pinned
     * ({@link PinnedMemory}).
     */
    public void copyFromHostAsync(MemorySegment src, long offset, Stream stream) {
        requireNative(src);
        checkRange(offset, src.byteSize());
        MemorySegment s = streamOf(stream);
        Cuda.check(Driver.memcpyHtoDAsync(address + offset, src, src.byteSize(), s), "cuMemcpyHtoDAsync");
    }

    /** Queues a copy from {@code offset} in this block into native {@code dst} on {@code stream}. */
    public void copyToHostAsync(long offset, MemorySegment dst, Stream stream) {
        requireNative(dst);
        checkRange(offset, dst.byteSize());
        MemorySegment s = streamOf(stream);
        Cuda.check(Driver.memcpyDtoHAsync(dst, address + offset, dst.byteSize(), s), "cuMemcpyDtoHAsync");
    }

    /** Copies {@code bytes} from {@code src} at {@code srcOffset} to this block at {@code offset}, and waits. */
    public void copyFrom(DeviceMemory src, long srcOffset, long offset, long bytes) {
        src.checkRange(srcOffset, bytes);
        checkRange(offset, bytes);
        bind();
        Cuda.check(Driver.memcpyDtoD(address + offset, src.address() + srcOffset, bytes), "cuMemcpyDtoD");
    }

    /** Queues a device-to-device copy on {@code stream}. */
    public void copyFromAsync(DeviceMemory src, long srcOffset, long offset, long bytes, Stream stream) {
        src.checkRange(srcOffset, bytes);
        checkRange(offset, bytes);
        MemorySegment s = streamOf(stream);
        Cuda.check(Driver.memcpyDtoDAsync(address + offset, src.address() + srcOffset, bytes, s), "cuMemcpyDtoDAsync");
    }

    /** Sets every byte of the block to {@code value} and waits. */
    public void memset(byte value) {
        memset(value, 0, byteSize);
    }

    /** Sets {@code bytes} bytes from {@code offset} to {@code value} and waits. */
    public void memset(byte value, long offset, long bytes) {
        checkRange(offset, bytes);
        bind();
        Cuda.check(Driver.memsetD8(address + offset, value, bytes, null), "cuMemsetD8");
    }

    /** Queues setting {@code bytes} bytes from {@code offset} to {@code value} on {@code stream}. */
    public void memsetAsync(byte value, long offset, long bytes, Stream stream) {
        checkRange(offset, bytes);
        MemorySegment s = streamOf(stream);
        Cuda.check(Driver.memsetD8(address + offset, value, bytes, s), "cuMemsetD8Async");
    }

    /** Sets {@code count} 32-bit words from byte {@code offset} (4-aligned) to {@code pattern}, and waits. */
    public void memset32(int pattern, long offset, long count) {
        if ((offset & 3) != 0) throw new IllegalArgumentException("offset must be a multiple of 4, was " + offset);
        checkRange(offset, count * 4);
        bind();
        Cuda.check(Driver.memsetD32(address + offset, pattern, count, null), "cuMemsetD32");
    }

    // ---- shared plumbing (GpuArray and DeviceArray use these with checked addresses) ---------------------

    static void htod(long dst, MemorySegment src, long bytes) {
        if (src.isNative()) {
            Cuda.check(Driver.memcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
            return;
        }
        for (long done = 0; done < bytes; done += HEAP_CHUNK) {
            long n = Math.min(HEAP_CHUNK, bytes - done);
            Cuda.check(Driver.memcpyHtoD(dst + done, src.asSlice(done, n), n), "cuMemcpyHtoD");
        }
    }

    static void dtoh(MemorySegment dst, long src, long bytes) {
        if (dst.isNative()) {
            Cuda.check(Driver.memcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
            return;
        }
        for (long done = 0; done < bytes; done += HEAP_CHUNK) {
            long n = Math.min(HEAP_CHUNK, bytes - done);
            Cuda.check(Driver.memcpyDtoH(dst.asSlice(done, n), src + done, n), "cuMemcpyDtoH");
        }
    }

    static void requireNative(MemorySegment host) {
        if (!host.isNative()) {
            throw new IllegalArgumentException("asynchronous copies need native host memory (PinnedMemory or an Arena "
                    + "segment): the driver reads it after the call returns, when a Java array may have moved");
        }
    }

    MemorySegment streamOf(Stream stream) {
        Objects.requireNonNull(stream, "stream");
        if (stream.device() != device) {
            throw new IllegalArgumentException("stream of device " + stream.device() + " used with memory of device " + device);
        }
        checkOpen();
        return stream.bind();
    }

    void checkRange(long offset, long bytes) {
        checkOpen();
        if (offset < 0 || bytes < 0 || offset > byteSize - bytes) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + "+" + bytes
                    + ") is outside device memory of " + byteSize + " bytes");
        }
    }

    void bind() {
        checkOpen();
        Cuda.bind(ctx);
    }

    MemorySegment context() {
        return ctx;
    }

    void checkOpen() {
        if (closed) throw new IllegalStateException("device memory is closed");
    }

    /** Keeps the allocation alive for an exported view; balanced by {@link #release()}. */
    void retain() {
        checkOpen();
        refs.incrementAndGet();
    }

    void release() {
        if (refs.decrementAndGet() == 0) {
            Cuda.bind(ctx);
            tracked.close();
        }
    }

    /** Ends this handle; the memory is freed now unless an exported view still uses it. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        release();
    }

    @Override
    public String toString() {
        return "DeviceMemory[0x" + Long.toHexString(address) + ", " + byteSize + " bytes, device " + device + (closed ? ", closed]" : "]");
    }
}
