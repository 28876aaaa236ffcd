package io.jkompute.graph.std;

import io.jkompute.DataType;
import io.jkompute.MemoryType;
import io.jkompute.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * The GPU buffers of a device BlockMemoryPool: one core tensor per block, made up front (exportable to CUDA when the
 * VulkanDevice says {@code export_memory}).
 */
final class DeviceBlocks implements AutoCloseable {
    private final List<Tensor> blocks = new ArrayList<>();

    DeviceBlocks(VulkanDevice device, long blockSize, int count) {
        try {
            for (int i = 0; i < count; i++) {
                long[] shape = {blockSize};
                blocks.add(device.exportsMemory()
                        ? device.manager().exportableTensor(DataType.UINT8, shape, MemoryType.DEVICE)
                        : device.manager().tensor(DataType.UINT8, shape, MemoryType.DEVICE));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    Tensor block(int index) {
        return blocks.get(index);
    }

    @Override
    public void close() {
        for (Tensor t : blocks) {
            t.close();
        }
        blocks.clear();
    }
}
