/**
 * GXF's CUDA extension for jkompute graphs: {@code nvidia::gxf::GPUDevice}, {@code CudaStreamPool},
 * {@code CudaStreamSync}, the message components {@code CudaStreamId} and {@code CudaEvent}, and CUDA device memory
 * behind {@code BlockMemoryPool} and {@code UnboundedAllocator} with {@code storage_type: 1}. Java codelets see CUDA
 * device tensors as {@link io.jkompute.graph.cuda.CudaDeviceTensor}, a jkompute-cuda {@code GpuArray} view with its
 * stream.
 */
module io.jkompute.graph.cuda {
    requires transitive io.jkompute.graph;
    requires transitive io.jkompute.cuda;
    requires org.slf4j;

    exports io.jkompute.graph.cuda;

    provides io.jkompute.graph.GraphExtension with io.jkompute.graph.cuda.CudaExtension;
}
