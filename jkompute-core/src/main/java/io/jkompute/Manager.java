package io.jkompute;

import io.jkompute.internal.InitBatch;
import io.jkompute.internal.VulkanDevice;
import io.jkompute.internal.VulkanInstance;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owns one Vulkan device and its compute queues, and everything made on them: tensors, images, algorithms and
 * sequences. {@link #close()} frees all of it, in order (sequences, algorithms, memory, device). Every Manager of the
 * process shares one Vulkan instance, made on first use and destroyed at JVM exit (some drivers allow only a few
 * instances per process). When the JVM exits, {@link Shutdown} stops the work first and then closes the Managers
 * still open, since some drivers crash at exit when a device is left alive. {@link #close()} is safe while other
 * threads still use the Manager: new work fails with {@link IllegalStateException}, work already submitted completes
 * first, and a thread recording or waiting on a sequence finishes that before the sequence is freed.
 *
 * <pre>{@code
 * try (Manager mgr = new Manager()) {
 *     Tensor a = mgr.tensor(new float[] {1, 2, 3});
 *     Tensor b = mgr.tensor(new float[] {4, 5, 6});
 *     Tensor out = mgr.tensor(new float[3]);
 *     mgr.sequence().eval(new OpSyncDevice(a, b), new OpMult(a, b, out, mgr.algorithm()), new OpSyncLocal(out));
 *     float[] r = out.toFloatArray(); // 4, 10, 18
 * }
 * }</pre>
 */
public final class Manager implements AutoCloseable {
    private static final Logging.Log LOG = Logging.logger(Manager.class);
    private static final Set<Manager> OPEN = Collections.synchronizedSet(new LinkedHashSet<>());
    /** Managers whose device is being made (guarded by OPEN). */
    private static int constructing;

    static {
        Shutdown.install();
    }

    private final VulkanDevice device;
    private final InitBatch initBatch;
    private final DeviceCopy deviceCopy;
    /** Records and runs the tensors' own copies: a tensor is a data object and submits nothing itself. */
    private final io.jkompute.internal.TensorTransfers transfers = new io.jkompute.internal.TensorTransfers(this);
    /**
     * Guards the three sets below. Not this Manager's monitor: {@link #sequence(String)} holds that while it makes a
     * sequence under the read side of {@link #submissions}, and a close queued on the write side would close a cycle.
     */
    private final Object registry = new Object();
    private final Set<ManagedObject.Tracked> sequences = new LinkedHashSet<>();
    private final Set<ManagedObject.Tracked> algorithms = new LinkedHashSet<>();
    private final Set<ManagedObject.Tracked> memories = new LinkedHashSet<>();
    private final Map<String, Sequence> named = new HashMap<>();
    private final List<String> leaks = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong ids = new AtomicLong();
    private final AtomicInteger running = new AtomicInteger();
    /**
     * Read side: a submission being made (its objects checked open, not yet counted in {@link #running}). Write side:
     * freeing a tensor, image or algorithm, or rebuilding an algorithm, so nothing is freed under a submission that
     * has checked it and is about to use it.
     */
    private final java.util.concurrent.locks.ReentrantReadWriteLock submissions =
            new java.util.concurrent.locks.ReentrantReadWriteLock();
    private final Throwable createdAt = new Throwable("created here");
    private Sequence defaultSequence;
    private volatile boolean closed;
    /** Set under the write side of {@link #submissions} once the device is destroyed. */
    private boolean deviceGone;
    private final java.util.concurrent.CountDownLatch closeDone = new java.util.concurrent.CountDownLatch(1);

    /**
     * The first Vulkan device, one queue of its default compute family: a compute-only family when it has one (faster
     * round trips on NVIDIA), else the first with compute.
     */
    public Manager() {
        this(0);
    }

    /** The given device, one queue of its default compute family (compute-only first). */
    public Manager(int deviceIndex) {
        this(deviceIndex, new int[0], List.of());
    }

    /**
     * The given device with the given queues and device extensions.
     *
     * @param deviceIndex        index into {@link #listDevices()}
     * @param familyQueueIndices one queue per entry, of that queue family (repeat a family for several of its queues);
     *                           {@code sequence(i)} uses the i-th. Empty: one queue of the default compute family
     *                           (compute-only first).
     * @param extensions         device extensions to enable; each must be supported
     */
    public Manager(int deviceIndex, int[] familyQueueIndices, List<String> extensions) {
        synchronized (OPEN) {
            // counted while its device is made, so the shutdown closes it too instead of destroying the instance
            // under it
            Shutdown.checkAccepting();
            constructing++;
        }
        try {
            this.device = VulkanInstance.onOwner(
                    () -> new VulkanDevice(VulkanInstance.shared(), deviceIndex, familyQueueIndices, extensions));
        } catch (RuntimeException | Error e) {
            constructed(null);
            throw e;
        }
        InitBatch batch = null;
        try {
            batch = new InitBatch(device);
            this.initBatch = batch;
            this.deviceCopy = new DeviceCopy(device);
        } catch (RuntimeException | Error e) {
            if (batch != null) batch.close();
            VulkanInstance.onOwner(() -> {
                device.close();
                return null;
            });
            constructed(null);
            throw e;
        }
        constructed(this);
    }

    private static void constructed(Manager m) {
        synchronized (OPEN) {
            constructing--;
            if (m != null) {
                OPEN.add(m);
            }
            OPEN.notifyAll();
        }
    }

    /** Every Vulkan device of the system, in the order {@link #Manager(int)} numbers them. */
    public static List<DeviceProperties> listDevices() {
        VulkanInstance inst = VulkanInstance.shared();
        List<DeviceProperties> out = new ArrayList<>();
        for (int i = 0; i < inst.physicalDevices().size(); i++) {
            out.add(inst.describe(i));
        }
        return out;
    }

    /** Name, limits and features of this Manager's device. */
    public DeviceProperties deviceProperties() {
        return device.properties();
    }

    /** Number of queues (one per family index given at construction). */
    public int queueCount() {
        return device.queues().size();
    }

    // ---- tensors ----

    /** A float32 DEVICE tensor holding a copy of {@code data} (sync it to the GPU with {@link OpSyncDevice}). */
    public Tensor tensor(float[] data) {
        return tensor(data, MemoryType.DEVICE);
    }

    /** A float32 tensor of the given memory type holding a copy of {@code data}. */
    public Tensor tensor(float[] data, MemoryType type) {
        return tensor(DataType.FLOAT32, MemorySegment.ofArray(data), new long[] {data.length}, type);
    }

    /** A float64 DEVICE tensor holding a copy of {@code data}; the device must support 64-bit floats in shaders. */
    public Tensor tensor(double[] data) {
        return tensor(data, MemoryType.DEVICE);
    }

    /** A float64 tensor of the given memory type holding a copy of {@code data}. */
    public Tensor tensor(double[] data, MemoryType type) {
        return tensor(DataType.FLOAT64, MemorySegment.ofArray(data), new long[] {data.length}, type);
    }

    /** An int32 tensor. For uint32 use {@link #tensor(DataType, MemorySegment, long[], MemoryType)}. */
    public Tensor tensor(int[] data) {
        return tensor(data, MemoryType.DEVICE);
    }

    /** An int32 tensor of the given memory type holding a copy of {@code data}. */
    public Tensor tensor(int[] data, MemoryType type) {
        return tensor(DataType.INT32, MemorySegment.ofArray(data), new long[] {data.length}, type);
    }

    /** An int64 tensor. */
    public Tensor tensor(long[] data, MemoryType type) {
        return tensor(DataType.INT64, MemorySegment.ofArray(data), new long[] {data.length}, type);
    }

    /** An int16 tensor. */
    public Tensor tensor(short[] data, MemoryType type) {
        return tensor(DataType.INT16, MemorySegment.ofArray(data), new long[] {data.length}, type);
    }

    /** An int8 tensor. */
    public Tensor tensor(byte[] data, MemoryType type) {
        return tensor(DataType.INT8, MemorySegment.ofArray(data), new long[] {data.length}, type);
    }

    /** A bool tensor, one byte per element (0 or 1). */
    public Tensor tensor(boolean[] data, MemoryType type) {
        byte[] b = new byte[data.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = data[i] ? (byte) 1 : 0;
        }
        return tensor(DataType.BOOL, MemorySegment.ofArray(b), new long[] {data.length}, type);
    }

    /** A zero-filled DEVICE tensor of the given type and shape. */
    public Tensor tensor(DataType type, long... shape) {
        return tensor(type, null, shape, MemoryType.DEVICE);
    }

    /** A zero-filled tensor of the given type, shape and memory type. */
    public Tensor tensor(DataType type, long[] shape, MemoryType memoryType) {
        return tensor(type, null, shape, memoryType);
    }

    /**
     * A tensor of any built-in type, initialised from raw bytes (or zero-filled when {@code data} is null).
     *
     * @throws IllegalArgumentException if the byte count does not match type × shape, or the type is CUSTOM
     */
    public Tensor tensor(DataType type, MemorySegment data, long[] shape, MemoryType memoryType) {
        Objects.requireNonNull(type, "type");
        if (type == DataType.CUSTOM) {
            throw new IllegalArgumentException("CUSTOM tensors need an element size: use customTensor(elementSize, ...)");
        }
        return newTensor(type, type.byteSize(), shape, memoryType, data);
    }

    /** A tensor of structs of {@code elementSize} bytes each, from raw bytes (or zero-filled when null). */
    public Tensor customTensor(int elementSize, MemorySegment data, long[] shape, MemoryType memoryType) {
        if (elementSize <= 0) {
            throw new IllegalArgumentException("custom element size must be positive, got " + elementSize);
        }
        return newTensor(DataType.CUSTOM, elementSize, shape, memoryType, data);
    }

    /**
     * A zero-filled tensor in its own device memory that {@link Tensor#exportMemory()} can hand to CUDA (or any API
     * that imports opaque file descriptors). DEVICE (with staging) or STORAGE memory.
     */
    public Tensor exportableTensor(DataType type, long[] shape, MemoryType memoryType) {
        checkOpen();
        Objects.requireNonNull(type, "type");
        if (type == DataType.CUSTOM) {
            throw new IllegalArgumentException("exportable tensors take a built-in data type");
        }
        if (memoryType != MemoryType.DEVICE && memoryType != MemoryType.STORAGE) {
            throw new IllegalArgumentException("exportable tensors are DEVICE or STORAGE memory, got " + memoryType);
        }
        Tensor.count(shape);
        return creating(() -> new Tensor(this, type, type.byteSize(), shape, memoryType, null, true));
    }

    private Tensor newTensor(DataType type, int elementSize, long[] shape, MemoryType memoryType, MemorySegment data) {
        checkOpen();
        Objects.requireNonNull(shape, "shape");
        Objects.requireNonNull(memoryType, "memoryType");
        long bytes = Math.multiplyExact(Tensor.count(shape), (long) elementSize);
        if (data != null && data.byteSize() != bytes) {
            throw new IllegalArgumentException("tensor data has " + data.byteSize() + " bytes, but " + type
                    + java.util.Arrays.toString(shape) + " needs " + bytes);
        }
        return creating(() -> new Tensor(this, type, elementSize, shape, memoryType, data));
    }

    // ---- images ----

    /** A zero-filled DEVICE image. */
    public Image image(DataType type, int width, int height, int channels) {
        return image(type, width, height, channels, MemoryType.DEVICE, null);
    }

    /** A float32 DEVICE image from data laid out row by row, channels interleaved. */
    public Image image(float[] data, int width, int height, int channels) {
        return image(DataType.FLOAT32, width, height, channels, MemoryType.DEVICE, MemorySegment.ofArray(data));
    }

    /**
     * An image of the given type; {@code data} (or null for zeros) holds width × height × channels elements.
     * Kompute accepted a larger array and used its start; jkompute asks for the exact size.
     */
    public Image image(DataType type, int width, int height, int channels, MemoryType memoryType, MemorySegment data) {
        return image(type, width, height, channels, memoryType, null, data);
    }

    /**
     * An image with the given tiling: {@code null} for the memory type's default (LINEAR for HOST and DEVICE_AND_HOST,
     * OPTIMAL for DEVICE and STORAGE). HOST and DEVICE_AND_HOST images need LINEAR tiling.
     *
     * @throws IllegalArgumentException when the device cannot make a storage image of this format and tiling (the
     *     message names the format, the tiling and the missing feature)
     */
    public Image image(DataType type, int width, int height, int channels, MemoryType memoryType, Tiling tiling,
            MemorySegment data) {
        checkOpen();
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(memoryType, "memoryType");
        if (data != null && type.byteSize() > 0) {
            long need = (long) width * height * channels * type.byteSize();
            if (data.byteSize() != need) {
                throw new IllegalArgumentException("image data has " + data.byteSize() + " bytes, but a " + width + "x"
                        + height + "x" + channels + " " + type + " image needs " + need);
            }
        }
        return creating(() -> new Image(this, type, width, height, channels, memoryType, tiling, data));
    }

    // ---- algorithms ----

    /** An empty algorithm, to be built with {@link Algorithm#rebuild} or by {@link OpMult}. */
    public Algorithm algorithm() {
        checkOpen();
        return creating(() -> new Algorithm(this));
    }

    /** An algorithm with the default workgroup count and no constants. */
    public Algorithm algorithm(List<? extends Memory> memories, byte[] spirv) {
        return algorithm(memories, spirv, Workgroup.DEFAULT, Constants.NONE, Constants.NONE);
    }

    /** An algorithm with the given workgroup count and no constants. */
    public Algorithm algorithm(List<? extends Memory> memories, byte[] spirv, Workgroup workgroup) {
        return algorithm(memories, spirv, workgroup, Constants.NONE, Constants.NONE);
    }

    /**
     * An algorithm built from SPIR-V over these tensors and images; closed with this Manager unless closed before.
     *
     * @param memories  bound in order: binding i = position i, set 0
     * @param spirv     SPIR-V (use {@link Shader#compile(String)} for GLSL)
     * @param workgroup workgroup counts, or {@link Workgroup#DEFAULT} for (first memory's size, 1, 1)
     * @param spec      specialization constants, constant_id = position
     * @param push      push constants; later ones must have the same size
     */
    public Algorithm algorithm(List<? extends Memory> memories, byte[] spirv, Workgroup workgroup, Constants spec, Constants push) {
        Algorithm a = algorithm();
        try {
            a.rebuild(memories, spirv, workgroup, spec, push);
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
        return a;
    }

    // ---- sequences ----

    /** A sequence on queue 0, without timestamps. */
    public Sequence sequence() {
        return sequence(0, 0);
    }

    /** A sequence on the given queue (position in the family index list given at construction), without timestamps. */
    public Sequence sequence(int queueIndex) {
        return sequence(queueIndex, 0);
    }

    /**
     * A sequence on the given queue, with room for GPU timestamps.
     *
     * @param queueIndex      which of this Manager's queues (position in the family index list)
     * @param totalTimestamps how many operations get a GPU timestamp; 0 for none
     */
    public Sequence sequence(int queueIndex, int totalTimestamps) {
        checkOpen();
        return creating(() -> new Sequence(this, queueIndex, totalTimestamps));
    }

    /** The sequence called {@code name}, made on queue 0 at first use (the seeds' named sequences). */
    public synchronized Sequence sequence(String name) {
        checkOpen();
        Sequence s = named.get(Objects.requireNonNull(name, "name"));
        if (s == null || s.isClosed()) {
            s = sequence();
            named.put(name, s);
        }
        return s;
    }

    private synchronized Sequence defaultSequence() {
        if (defaultSequence == null || defaultSequence.isClosed()) {
            defaultSequence = sequence();
        }
        return defaultSequence;
    }

    /** Records and evaluates operations on the Manager's default sequence (the seeds' {@code eval_<op>_def}). */
    public void eval(Op... ops) {
        checkOpen();
        defaultSequence().eval(ops);
    }

    /** Records and submits operations on the default sequence; finish with {@link #evalAwait()}. */
    public void evalAsync(Op... ops) {
        checkOpen();
        defaultSequence().evalAsync(ops);
    }

    /** Waits for the default sequence (the seeds' {@code eval_await_def}). */
    public void evalAwait() {
        checkOpen();
        defaultSequence().evalAwait();
    }

    /** Waits at most {@code timeout} for the default sequence; false on timeout. */
    public boolean evalAwait(Duration timeout) {
        checkOpen();
        return defaultSequence().evalAwait(timeout);
    }

    // ---- lifetimes ----

    /** Leak reports: objects of this Manager that became unreachable without being closed, with where each was made. */
    public List<String> leaks() {
        synchronized (leaks) {
            return List.copyOf(leaks);
        }
    }

    /** Whether {@link #close()} has run; a closed Manager refuses new objects. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Frees everything this Manager made, then the device. Idempotent. Safe while other threads still use the
     * Manager: from the start of the close, new work and new objects fail with {@link IllegalStateException}; a
     * submission being made completes, the GPU finishes what was submitted, and each sequence is freed only once no
     * thread records into it or waits on it.
     */
    @Override
    public void close() {
        boolean closing;
        synchronized (this) {
            closing = closed;
            closed = true;
        }
        if (closing) {
            // closing on another thread (the owner and the shutdown may race): return once it is done, so nothing
            // after this call (the instance's destruction) runs under it. Not under the monitor: the closer takes it
            awaitCloseDone();
            return;
        }
        try {
            closeNow();
        } finally {
            closeDone.countDown();
        }
    }

    private void awaitCloseDone() {
        boolean interrupted = false;
        while (true) {
            try {
                closeDone.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeNow() {
        // a submission that checked this Manager open before 'closed' was set is being made: let it be made (and
        // counted running) before anything is freed; every later one sees 'closed' under the lock and fails
        submissions.writeLock().lock();
        submissions.writeLock().unlock();
        List<ManagedObject.Tracked> seqs;
        List<ManagedObject.Tracked> algos;
        List<ManagedObject.Tracked> mems;
        synchronized (registry) {
            // no object registers once closed, so these are all there will be
            seqs = reversed(sequences);
            algos = reversed(algorithms);
            mems = reversed(memories);
        }
        VulkanInstance.onOwner(() -> {
            try {
                device.waitIdle();
            } catch (RuntimeException e) {
                LOG.warn("waiting for the device before close failed: {}", e.getMessage());
            }
            // a sequence is freed under its own lock: a thread still recording into it or waiting on its semaphore
            // finishes that first (the GPU is idle, so a wait ends)
            for (ManagedObject.Tracked t : seqs) {
                ManagedObject o = t.owner();
                try {
                    if (o instanceof Sequence seq) {
                        seq.closeForManager();
                    } else {
                        t.closeOnce();
                    }
                } catch (RuntimeException e) {
                    LOG.warn("freeing {} failed: {}", t.description, e.getMessage());
                }
            }
            submissions.writeLock().lock();
            try {
                closeAll(algos);
                closeAll(mems);
                initBatch.close();
                deviceCopy.close();
                // on the thread that made it: the NVIDIA driver (580, H100) crashed the JVM in libEGL_nvidia when a
                // device was destroyed on another thread, which is what a shutdown hook or a worker thread does
                device.close();
                deviceGone = true;
            } finally {
                submissions.writeLock().unlock();
            }
            return null;
        });
        synchronized (registry) {
            sequences.clear();
            algorithms.clear();
            memories.clear();
        }
        synchronized (OPEN) {
            OPEN.remove(this);
            OPEN.notifyAll();
        }
        LOG.debug("manager closed");
    }

    private static List<ManagedObject.Tracked> reversed(Set<ManagedObject.Tracked> set) {
        List<ManagedObject.Tracked> l = new ArrayList<>(set);
        Collections.reverse(l);
        return l;
    }

    private static void closeAll(List<ManagedObject.Tracked> l) {
        for (ManagedObject.Tracked t : l) {
            try {
                t.closeOnce();
            } catch (RuntimeException e) {
                LOG.warn("freeing {} failed: {}", t.description, e.getMessage());
            }
        }
    }

    /** Whether a Manager of this process is open. */
    static boolean anyOpen() {
        return !OPEN.isEmpty();
    }

    /** Waits at most {@code millis} for a Manager to close. */
    static void awaitClosed(long millis) {
        synchronized (OPEN) {
            if (OPEN.isEmpty()) {
                return;
            }
            try {
                OPEN.wait(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Closes the Managers still open, then the instance: the last step of {@link Shutdown}. */
    static void closeAllAtExit() {
        List<Manager> open;
        synchronized (OPEN) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (constructing > 0 && System.nanoTime() - deadline < 0) {
                try {
                    OPEN.wait(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            open = new ArrayList<>(OPEN);
        }
        for (Manager m : open) {
            if (Shutdown.refusedWork()) {
                LOG.debug("closing the Manager ({}) of work stopped at exit", m.device.properties().name());
            } else {
                LOG.warn("a Manager ({}) was still open at JVM exit; closing it", m.device.properties().name());
            }
            LOG.debug("it was created at:\n{}", stackTrace(m.createdAt));
            m.close();
        }
        VulkanInstance.destroyShared();
    }

    // ---- internal ----

    VulkanDevice device() {
        return device;
    }

    InitBatch initBatch() {
        return initBatch;
    }

    DeviceCopy deviceCopy() {
        return deviceCopy;
    }

    io.jkompute.internal.TensorTransfers transfers() {
        return transfers;
    }

    long nextId() {
        return ids.incrementAndGet();
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException(Shutdown.isStopping()
                    ? "the Manager is closed: jkompute is stopping (the JVM is exiting)" : "the Manager is closed");
        }
    }

    /** Open and taking new work: not closed, and the process is not stopping. */
    void checkAccepting() {
        checkOpen();
        Shutdown.checkAccepting();
    }

    /**
     * Makes a native object while no close can free the device under it: the read side of {@link #submissions},
     * with the Manager checked open under it.
     */
    private <T> T creating(java.util.function.Supplier<T> make) {
        java.util.concurrent.locks.Lock l = submissions.readLock();
        l.lock();
        try {
            checkAccepting();
            return make.get();
        } finally {
            l.unlock();
        }
    }

    /** Builds an algorithm's first pipeline under the same guard as a new object. */
    void building(Runnable build) {
        creating(() -> {
            build.run();
            return null;
        });
    }

    void register(ManagedObject o) {
        synchronized (registry) {
            if (closed) {
                o.tracked.closeOnce();
                throw new IllegalStateException("the Manager is closed");
            }
            switch (o) {
                case Sequence s -> sequences.add(s.tracked);
                case Algorithm a -> algorithms.add(a.tracked);
                case Memory m -> memories.add(m.tracked);
            }
        }
        LOG.debug("created {}", o.tracked.description);
    }

    void release(ManagedObject.Tracked t) {
        boolean isSequence;
        boolean isMemory;
        synchronized (registry) {
            if (closed || t.isClosed()) {
                return;   // a closing Manager frees it
            }
            isSequence = sequences.contains(t);
            isMemory = memories.contains(t);
        }
        // not under the registry's lock: a new object registers while holding the read side of 'submissions', and
        // freeAfterGpu takes the write side
        if (isMemory) {
            // a pending zero-fill or upload may still name this memory; run it before the memory goes. Under the read
            // side of 'submissions' and only while open: a Manager closing on another thread (the shutdown hook at
            // Ctrl-C) frees every memory, so a flush after that submitted copies into freed buffers (a JVM crash)
            java.util.concurrent.locks.Lock l = submissions.readLock();
            l.lock();
            try {
                if (closed) {
                    return;   // the closing Manager frees it
                }
                initBatch.flush();
            } finally {
                l.unlock();
            }
        }
        if (isSequence) {
            // a sequence drained its own submissions and those waiting on its semaphore (Sequence.close)
            t.closeOnce();
        } else if (!freeAfterGpu(t::closeOnce)) {
            return;   // the Manager closed meanwhile and freed it
        }
        LOG.debug("closed {}", t.description);
        synchronized (registry) {
            sequences.remove(t);
            algorithms.remove(t);
            memories.remove(t);
        }
    }

    /**
     * Runs {@code free} once no submission is being made and the GPU is done with every one made: a running sequence
     * may still read the object, and one being submitted on another thread may have checked it open already.
     * Returns false, running nothing, when the Manager closed and its device is gone.
     */
    boolean freeAfterGpu(Runnable free) {
        submissions.writeLock().lock();
        try {
            if (deviceGone) {
                return false;
            }
            if (running.get() > 0) {
                device.waitIdle();
            }
            free.run();
            return true;
        } finally {
            submissions.writeLock().unlock();
        }
    }

    java.util.concurrent.locks.Lock submitting() {
        return submissions.readLock();
    }

    void runningChanged(int delta) {
        running.addAndGet(delta);
    }

    void reportLeak(ManagedObject.Tracked t) {
        String report = t.description + " was not closed before it became unreachable; it is freed when its Manager"
                + " closes. It was created at:\n" + stackTrace(t.createdAt);
        leaks.add(report);
        LOG.warn("leak: {}", report);
    }

    void checkOwned(ManagedObject o) {
        if (o.manager != this) {
            throw new IllegalArgumentException(o + " belongs to another Manager");
        }
        o.checkOpen();
    }

    void checkOwned(Memory m, String what) {
        if (m == null) {
            throw new IllegalArgumentException(what + ": null tensor or image");
        }
        checkOwned(m);
    }

    private static String stackTrace(Throwable t) {
        StringWriter sw = new StringWriter();
        t.printStackTrace(new PrintWriter(sw));
        return sw.toString();
    }
}
