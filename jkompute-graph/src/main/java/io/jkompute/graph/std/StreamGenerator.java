package io.jkompute.graph.std;

import io.jkompute.DataType;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.StorageType;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Transmitter;
import java.lang.foreign.MemorySegment;

/**
 * Per tick: a host message with two tensors named {@code host_tensor} (shape [1024, 1] float32, from
 * {@code allocator0}) on {@code transmitter0}, and, when {@code transmitter1} is given, a device message with two
 * tensors named {@code device_tensor} (same shape, device memory from {@code allocator1}: Vulkan, or CUDA where the
 * pool's memory is CUDA memory) on {@code transmitter1}.
 * Every tensor of tick n holds the same deterministic values {@link #value(long, int)}.
 *
 * <p>The values are computed once, not per frame: every frame is a contiguous window of one table of
 * {@code 1000 + ROWS} floats (see {@link #window}), copied in bulk into each tensor. Device tensors are uploaded
 * without waiting ({@link DeviceTensor#upload}); the kernel that reads them waits on the GPU.
 */
public class StreamGenerator extends CodeletAdapter {
    /**
     * Creates the codelet with its parameters at their defaults; a {@code JavaCodelet} instantiates it and sets them
     * from the app.
     */
    public StreamGenerator() {
    }

    /** Rows of every generated tensor; the shape is [ROWS, 1]. */
    public static final int ROWS = 1024;

    /** The values' period: {@link #value} is ((31 t + 7 r) mod 1000) − 500. */
    private static final int PERIOD = 1000;
    /** 7⁻¹ mod 1000 (7 × 143 = 1001): row r of tick t is TABLE[(143 · (31 t mod 1000) + r) mod 1000 + ...]. */
    private static final int INVERSE_OF_7 = 143;
    /** TABLE[j] = ((7 j) mod 1000) − 500 for j in [0, 1000 + ROWS): every frame is a window of it. */
    private static final MemorySegment TABLE;

    static {
        float[] t = new float[PERIOD + ROWS];
        for (int j = 0; j < t.length; j++) {
            t[j] = (float) ((7L * j) % PERIOD) - 500f;
        }
        TABLE = MemorySegment.ofArray(t);
    }

    private Transmitter tx0;
    private Transmitter tx1;
    private Allocator alloc0;
    private Allocator alloc1;

    @Override
    public void start() {
        tx0 = transmitter(param("transmitter0"));
        alloc0 = allocator(param("allocator0"));
        if (params().containsKey("transmitter1")) {
            tx1 = transmitter(param("transmitter1"));
            alloc1 = allocator(param("allocator1"));
        }
    }

    /** Element {@code row} of every tensor made in tick {@code tick} (1-based): small integers, exact in float32. */
    public static float value(long tick, int row) {
        return (float) ((tick * 31 + row * 7) % 1000) - 500f;
    }

    /**
     * The values of tick {@code tick}, rows 0..ROWS-1, as a view of the table. With b = 31 t mod 1000, row r is
     * ((b + 7 r) mod 1000) − 500 = ((7 (143 b + r)) mod 1000) − 500, because 7 × 143 ≡ 1 (mod 1000): the window
     * starting at (143 b) mod 1000.
     */
    static MemorySegment window(long tick) {
        long b = Math.floorMod(tick * 31, PERIOD);
        long start = (INVERSE_OF_7 * b) % PERIOD;
        return TABLE.asSlice(start * Float.BYTES, (long) ROWS * Float.BYTES);
    }

    @Override
    public void tick() {
        long tick = executionCount();
        MemorySegment values = window(tick);
        Message host = Message.create();
        for (int k = 0; k < 2; k++) {
            HostTensor t = HostTensor.allocate(alloc0, DataType.FLOAT32, ROWS, 1);
            host.add("host_tensor", t);
            MemorySegment.copy(values, 0, t.data(), 0, values.byteSize());
        }
        tx0.publish(host);
        if (tx1 != null) {
            Message device = Message.create();
            for (int k = 0; k < 2; k++) {
                GraphTensor t = GraphTensor.allocate(alloc1, StorageType.DEVICE, DataType.FLOAT32, ROWS, 1);
                device.add("device_tensor", t);
                t.copyFromHost(values);
            }
            tx1.publish(device);
        }
    }
}
