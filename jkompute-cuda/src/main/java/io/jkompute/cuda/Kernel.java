package io.jkompute.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jkompute.cuda.internal.Driver;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A kernel ({@code CUfunction}) of a {@link CudaModule}, launched with a grid, a block, dynamic shared memory and
 * a stream. Arguments are given in the kernel's parameter order as Java values:
 * {@code Integer} (int), {@code Long} (long long or a raw pointer), {@code Float}, {@code Double}, {@code Short},
 * {@code Byte}, {@code Boolean} (1 byte), or device memory: a {@link GpuArray} (its {@link GpuArray#ptr()}), a
 * {@link DeviceMemory}, a {@link DeviceArray} (its device side) or a native {@link MemorySegment} (its address,
 * e.g. mapped pinned memory). The driver copies the values during the launch call.
 */
public final class Kernel {
    private static final int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0, CU_FUNC_ATTRIBUTE_NUM_REGS = 4;

    private final CudaModule module;
    private final String name;
    private final MemorySegment handle;
    private final int maxThreadsPerBlock;

    Kernel(CudaModule module, String name, MemorySegment handle) {
        this.module = module;
        this.name = name;
        this.handle = handle;
        this.maxThreadsPerBlock = attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    }

    /** The kernel's name in its module. */
    public String name() {
        return name;
    }

    /** The raw {@code CUfunction} address. */
    public long handle() {
        return handle.address();
    }

    /** The largest block this kernel can be launched with (limited by its register use). */
    public int maxThreadsPerBlock() {
        return maxThreadsPerBlock;
    }

    /** Registers each thread uses. */
    public int registers() {
        return attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
    }

    private int attribute(int attr) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            module.bind();
            Cuda.check(Driver.funcGetAttribute(out, attr, handle), "cuFuncGetAttribute");
            return out.get(JAVA_INT, 0);
        }
    }

    /** Launches on the default stream with no dynamic shared memory; returns at once (launches are asynchronous). */
    public void launch(Dim3 grid, Dim3 block, Object... args) {
        launch(null, grid, block, 0, args);
    }

    /**
     * Queues the kernel on {@code stream} (null: the default stream) and returns at once. Errors inside the
     * kernel surface at the next synchronising call.
     *
     * @throws IllegalArgumentException for a block larger than {@link #maxThreadsPerBlock()}, a stream of another
     *                                  device or an argument type that cannot be passed
     */
    public void launch(Stream stream, Dim3 grid, Dim3 block, int sharedMemBytes, Object... args) {
        if (block.count() > maxThreadsPerBlock) {
            throw new IllegalArgumentException("block of " + block.count() + " threads exceeds " + name + "'s limit of " + maxThreadsPerBlock);
        }
        if (sharedMemBytes < 0) throw new IllegalArgumentException("negative shared memory size " + sharedMemBytes);
        MemorySegment s = MemorySegment.NULL;
        if (stream != null) {
            if (stream.device() != module.device()) {
                throw new IllegalArgumentException("stream of device " + stream.device() + " cannot run a kernel loaded on device " + module.device());
            }
            s = stream.bind(); // rejects a closed stream; the bind that counts comes right before the launch
        }
        int n = args.length;
        try (Arena arena = Arena.ofConfined()) {
            // one block: n pointers, then one 8-byte slot per value (16 would only be needed for by-value structs)
            MemorySegment params = arena.allocate(16L * Math.max(n, 1), 8);
            for (int i = 0; i < n; i++) {
                long slot = 8L * n + 8L * i;
                put(params, slot, args[i], i);
                params.setAtIndex(ADDRESS, i, params.asSlice(slot));
            }
            // bound only now, after the arguments are packed: packing runs Java code that can move a virtual thread
            // to another carrier thread (a first VarHandle use blocks on a lock), which would lose an earlier bind
            module.bind();
            int rc = Driver.launchKernel(handle, grid.x(), grid.y(), grid.z(), block.x(), block.y(), block.z(),
                    sharedMemBytes, s, n == 0 ? MemorySegment.NULL : params);
            if (rc != 0) Cuda.check(rc, "cuLaunchKernel(" + name + ")");
            else Cuda.record(0);
        }
    }

    private void put(MemorySegment p, long off, Object a, int index) {
        switch (a) {
            case Integer v -> p.set(JAVA_INT, off, v);
            case Long v -> p.set(JAVA_LONG, off, v);
            case Float v -> p.set(JAVA_FLOAT, off, v);
            case Double v -> p.set(JAVA_DOUBLE, off, v);
            case Short v -> p.set(JAVA_SHORT, off, v);
            case Byte v -> p.set(JAVA_BYTE, off, v);
            case Boolean v -> p.set(JAVA_BYTE, off, (byte) (v ? 1 : 0));
            case GpuArray g -> p.set(JAVA_LONG, off, g.ptr());
            case DeviceMemory m -> p.set(JAVA_LONG, off, m.address());
            case DeviceArray d -> {
                if (!d.isAllocated()) throw new IllegalArgumentException("argument " + index + ": DeviceArray has no device side; call allocate()");
                p.set(JAVA_LONG, off, d.deviceData());
            }
            case MemorySegment m when m.isNative() -> p.set(JAVA_LONG, off, m.address());
            case null -> throw new IllegalArgumentException("argument " + index + " of " + name + " is null; pass 0L for a null pointer");
            default -> throw new IllegalArgumentException("argument " + index + " of " + name + " has type "
                    + a.getClass().getSimpleName() + ", which cannot be passed to a kernel (use Integer, Long, Float, "
                    + "Double, Short, Byte, Boolean, GpuArray, DeviceMemory, DeviceArray or a native MemorySegment)");
        }
    }

    @Override
    public String toString() {
        return "Kernel[" + name + ", device " + module.device() + "]";
    }
}
