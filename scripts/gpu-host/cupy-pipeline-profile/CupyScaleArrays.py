# CupyScale as it was before gxf.cuda.launch, for comparison: CuPy arrays from as_cupy and RawKernel's own call in the
# stream's context, and the input's timestamp carried to the output.
# y = 2x + 1 with a CuPy kernel, on a stream from the CudaStreamPool: the input is the received CUDA tensor (CuPy sees
# its memory, no copy), the output a tensor of the result pool written in place; the message carries the stream's
# CudaStreamId so CudaStreamSync downstream waits for the kernel. The Python twin of cuda-pipeline/CudaScale.java.
# Per frame it does what that codelet does and no more: the kernel is compiled once in start(), and as_cupy gives
# the same CuPy array for a pool block every time it comes back.
import cupy
import numpy

from gxf.core import MessageEntity
from gxf.cuda import CudaStreamId, CudaStreamPool, as_cupy
from gxf.python_codelet import CodeletAdapter
from gxf.std import Allocator, MemoryStorageType, PrimitiveType, Receiver, Tensor, Timestamp, Transmitter

_SOURCE = r"""
extern "C" __global__ void scale(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaf(x[i], 2.0f, 1.0f);
}
"""
_BLOCK = 256


class CupyScaleArrays(CodeletAdapter):
    def start(self):
        p = self.get_params()
        self.rx = Receiver.get(self.context(), self.cid(), p["receiver"])
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), p["allocator"])
        self.streams = CudaStreamPool.get(self.context(), self.cid(), p["stream_pool"])
        self.stream_cid, self.stream = self.streams.allocate_stream()
        self.cupy_stream = cupy.cuda.ExternalStream(self.stream.ptr)
        self.kernel = cupy.RawKernel(_SOURCE, "scale")
        self.kernel.compile()

    def tick(self):
        msg = self.rx.receive()
        src = Tensor.get_from_entity(msg)
        if src.element_type() != PrimitiveType.kFloat32:
            raise ValueError("CupyScale takes float32 tensors, got %s" % src.element_type())
        out = MessageEntity(self.context())
        dst = Tensor.add_to_entity(out, "scaled")
        dst.reshape_custom(src.shape(), PrimitiveType.kFloat32, 4, None, MemoryStorageType.kDevice, self.pool)
        # one call: the producer's work on x is done before ours, and both blocks wait for our stream before reuse
        x, y = as_cupy((src, dst), self.stream)
        n = x.size
        with self.cupy_stream:
            self.kernel(((n + _BLOCK - 1) // _BLOCK,), (_BLOCK,), (x, y, numpy.int32(n)))
        CudaStreamId.add_to_entity(out, "stream").stream_cid = self.stream_cid
        t = Timestamp.get_from_entity(msg)
        self.tx.publish(out, t.acqtime if t else 0)
