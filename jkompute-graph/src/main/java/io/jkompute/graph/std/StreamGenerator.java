package io.jkompute.graph.std;

import io.jkompute.DataType;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Transmitter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Per tick: a host message with two tensors named {@code host_tensor} (shape [1024, 1] float32, from
 * {@code allocator0}) on {@code transmitter0}, and, when {@code transmitter1} is given, a device message with two
 * tensors named {@code device_tensor} (same shape, Vulkan memory from {@code allocator1}) on {@code transmitter1}.
 * Every tensor of tick n holds the same deterministic values {@link #value(long, int)}.
 */
public class StreamGenerator extends CodeletAdapter {
    /** Rows of every generated tensor; the shape is [ROWS, 1]. */
    public static final int ROWS = 1024;

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

    @Override
    public void tick() {
        long tick = executionCount();
        Message host = Message.create();
        for (int k = 0; k < 2; k++) {
            HostTensor t = HostTensor.allocate(alloc0, DataType.FLOAT32, ROWS, 1);
            host.add("host_tensor", t);
            fill(t.data(), tick);
        }
        tx0.publish(host);
        if (tx1 != null) {
            Message device = Message.create();
            MemorySegment values = MemorySegment.ofArray(new float[ROWS]);
            fill(values, tick);
            for (int k = 0; k < 2; k++) {
                DeviceTensor t = DeviceTensor.allocate(alloc1, DataType.FLOAT32, ROWS, 1);
                device.add("device_tensor", t);
                t.upload(values);
            }
            tx1.publish(device);
        }
    }

    private static void fill(MemorySegment seg, long tick) {
        for (int i = 0; i < ROWS; i++) {
            seg.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, value(tick, i));
        }
    }
}
