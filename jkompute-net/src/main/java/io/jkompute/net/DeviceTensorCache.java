package io.jkompute.net;

import io.jkompute.DataType;
import io.jkompute.Manager;
import io.jkompute.Tensor;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.GraphTensor;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Device buffers for arriving device tensors when the UcxReceiver has no pool ({@code allocator}): a closed tensor's
 * Vulkan buffer goes back here and the next message of the same dtype and shape reuses it, oldest first. A new
 * buffer per frame would make every kernel stage that records per buffer record (and build a pipeline) per frame,
 * and creating and destroying buffers per frame while other threads submit work lost the device on NVIDIA
 * (VK_ERROR_DEVICE_LOST after ~1,300 frames of the split GPU pipeline on an H100); pooled buffers ran 20,000 frames.
 */
final class DeviceTensorCache implements AutoCloseable {
    private final Manager manager;
    private final int keep;
    private final Map<String, ArrayDeque<Tensor>> free = new HashMap<>();
    private boolean closed;

    DeviceTensorCache(Manager manager, int keep) {
        this.manager = manager;
        this.keep = keep;
    }

    GraphTensor create(DataType type, long[] shape, MemorySegment bytes) {
        String key = type + Arrays.toString(shape);
        Tensor t;
        synchronized (this) {
            ArrayDeque<Tensor> d = free.get(key);
            t = d == null ? null : d.pollFirst();
        }
        if (t == null) {
            t = manager.tensor(type, shape);
        }
        Tensor buffer = t;
        AtomicBoolean back = new AtomicBoolean();
        DeviceTensor dt = DeviceTensor.owned(buffer, type, shape, () -> {
            if (back.compareAndSet(false, true)) {
                giveBack(key, buffer);
            }
        });
        try {
            dt.upload(bytes);
            return dt;
        } catch (RuntimeException e) {
            dt.close();
            throw e;
        }
    }

    private void giveBack(String key, Tensor t) {
        synchronized (this) {
            if (!closed) {
                ArrayDeque<Tensor> d = free.computeIfAbsent(key, k -> new ArrayDeque<>());
                if (d.size() < keep) {
                    d.addLast(t);
                    return;
                }
            }
        }
        t.close();
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            for (ArrayDeque<Tensor> d : free.values()) {
                d.forEach(Tensor::close);
            }
            free.clear();
        }
    }
}
