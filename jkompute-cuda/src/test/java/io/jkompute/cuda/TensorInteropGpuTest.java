package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jkompute.DataType;
import io.jkompute.DeviceProperties;
import io.jkompute.Manager;
import io.jkompute.MemoryType;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Tensor;
import java.nio.ByteBuffer;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A jkompute Vulkan tensor and a CUDA kernel on the same bytes: the shared-buffer check through the core API. */
@Tag("gpu")
class TensorInteropGpuTest {

    @Test
    void aVulkanTensorIsACudaArrayWithoutACopy() {
        GpuTestSupport.requireCuda();
        java.util.List<DeviceProperties> vulkanDevices;
        try {
            vulkanDevices = Manager.listDevices();
        } catch (io.jkompute.JkomputeException e) {
            assumeTrue(false, "needs Vulkan next to CUDA: " + e.getMessage());
            return;
        }
        int vulkanIndex = -1;
        for (DeviceProperties p : vulkanDevices) {
            ByteBuffer u = ByteBuffer.wrap(p.deviceUuid());
            UUID uuid = new UUID(u.getLong(0), u.getLong(8));
            for (int d = 0; d < Cuda.deviceCount() && vulkanIndex < 0; d++) {
                if (Cuda.device(d).uuid().equals(uuid)) vulkanIndex = p.index();
            }
        }
        assumeTrue(vulkanIndex >= 0, "no Vulkan device is also a CUDA device");
        int n = 4 * 1024;
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = i - 100.25f;
        try (Manager mgr = new Manager(vulkanIndex);
             Tensor t = mgr.exportableTensor(DataType.FLOAT32, new long[] {4, 1024}, MemoryType.DEVICE);
             CudaModule kernels = GpuTestSupport.testKernels()) {
            t.setData(v);
            mgr.sequence().eval(new OpSyncDevice(t)).close();
            try (GpuArray g = GpuArray.fromTensor(t)) {
                assertArrayEquals(new long[] {4, 1024}, g.shape());
                assertEquals(DType.FLOAT32, g.dtype());
                assertArrayEquals(v, g.toFloatArray()); // Vulkan wrote, CUDA reads
                kernels.kernel("saxpy").launch(Dim3.blocksFor(n, 256), Dim3.of(256), n, 2f, g, g);
                g.at(3).fill(7.0);
                Cuda.synchronize();
            }
            mgr.sequence().eval(new OpSyncLocal(t)).close();
            float[] got = t.toFloatArray(); // CUDA wrote, Vulkan reads
            for (int i = 0; i < n; i++) {
                assertEquals(i >= 3 * 1024 ? 7f : Math.fma(2f, v[i], v[i]), got[i], "element " + i);
            }
        }
    }
}
