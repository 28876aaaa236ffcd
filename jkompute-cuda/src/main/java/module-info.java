/**
 * CUDA driver API and NVRTC through the FFM API: devices, streams, events, device memory, GpuArray, kernels.
 * The driver is loaded at run time; nothing CUDA is needed to build.
 */
module io.jkompute.cuda {
    requires transitive io.jkompute.core;
    requires org.slf4j;
    exports io.jkompute.cuda;
}
