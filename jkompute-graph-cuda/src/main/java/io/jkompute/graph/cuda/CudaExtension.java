package io.jkompute.graph.cuda;

import io.jkompute.graph.ComponentRegistry;
import io.jkompute.graph.GraphExtension;

/**
 * GXF's CudaExtension (plus the std resource {@code GPUDevice}, which only CUDA uses here): its component types, and
 * CUDA memory as the graph's device memory where the app runs on CUDA (see {@link CudaMemory}).
 */
public final class CudaExtension implements GraphExtension {
    /** Creates the extension; {@link java.util.ServiceLoader} calls this when the module is on the path. */
    public CudaExtension() {
    }

    @Override
    public String name() {
        return "CudaExtension";
    }

    @Override
    public void register(ComponentRegistry r) {
        r.register("GPUDevice", GPUDevice::new);
        r.register("CudaStreamPool", CudaStreamPool::new);
        r.register("CudaStreamSync", CudaStreamSync::new);
        r.registerDeviceMemory(new CudaMemory());
    }
}
