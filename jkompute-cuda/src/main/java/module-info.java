/**
 * CUDA driver API, NVRTC and cuBLAS through the FFM API: devices, streams, events, device memory, GpuArray with
 * numpy-style array math, kernels. The libraries are loaded at run time; nothing CUDA is needed to build.
 * <p>
 * The Vulkan core is optional ({@code requires static}): only the interop entry points that take a core type
 * ({@code GpuArray.fromTensor}, {@code ImportedMemory.of}, {@code DType.of(DataType)}) need it, and a caller of
 * those has the core already, so a CUDA-only application runs with this module and SLF4J alone.
 */
module io.jkompute.cuda {
    requires static io.jkompute.core;
    requires org.slf4j;
    exports io.jkompute.cuda;
}
