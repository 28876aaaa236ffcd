# y = 2x + 1 with a CuPy kernel, on a stream from the CudaStreamPool: the input is the received CUDA tensor, the output
# a tensor of the result pool written in place (the kernel gets both tensors' own device memory, no copy); the message
# carries the stream's CudaStreamId so CudaStreamSync downstream waits for the kernel. The Python twin of
# cuda-pipeline/CudaScale.java. Per frame it does what that codelet does and no more: the kernel is compiled once in
# start(), and gxf.cuda.launch starts it with CUDA's cuLaunchKernel on the tensors' pointers (RawKernel's own call,
# on CuPy arrays from gxf.cuda.as_cupy, does the same at about twice the cost per frame).
import cupy
import numpy

from gxf.core import MessageEntity
from gxf.cuda import CudaStreamId, CudaStreamPool, launch
from gxf.python_codelet import CodeletAdapter
from gxf.std import Allocator, MemoryStorageType, PrimitiveType, Receiver, Tensor, Transmitter

_SOURCE = r"""
extern "C" __global__ void scale(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaf(x[i], 2.0f, 1.0f);
}
"""
_BLOCK = 256


class CupyScale(CodeletAdapter):
    def start(self):
        p = self.get_params()
        self.rx = Receiver.get(self.context(), self.cid(), p["receiver"])
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), p["allocator"])
        self.streams = CudaStreamPool.get(self.context(), self.cid(), p["stream_pool"])
        self.stream_cid, self.stream = self.streams.allocate_stream()
        self.kernel = cupy.RawKernel(_SOURCE, "scale")
        self.kernel.compile()

    def tick(self):
        msg = self.rx.receive()
        src = Tensor.get_from_entity(msg)
        if src.element_type() != PrimitiveType.kFloat32:
            raise ValueError("CupyScale takes float32 tensors, got %s" % src.element_type())
        shape = src.shape()
        out = MessageEntity(self.context())
        dst = Tensor.add_to_entity(out, "scaled")
        dst.reshape_custom(shape, PrimitiveType.kFloat32, 4, None, MemoryStorageType.kDevice, self.pool)
        n = shape.size()
        # on our stream: the producer's work on src is done before ours, and both blocks wait for our stream before reuse
        launch(self.kernel, ((n + _BLOCK - 1) // _BLOCK,), (_BLOCK,), (src, dst, numpy.int32(n)), self.stream)
        CudaStreamId.add_to_entity(out, "stream").stream_cid = self.stream_cid
        self.tx.publish(out)  # as CudaScale.java: published at the graph clock's now, no acquisition time carried
