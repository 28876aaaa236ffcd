# y = 2x + 1 with a CuPy kernel, on a stream from the CudaStreamPool: the input is the received CUDA tensor (CuPy sees
# its memory, no copy), the output a tensor of the result pool written in place; the message carries the stream's
# CudaStreamId so CudaStreamSync downstream waits for the kernel. The Python twin of cuda-pipeline/CudaScale.java.
import cupy

from gxf.core import MessageEntity
from gxf.cuda import CudaStreamId, CudaStreamPool
from gxf.python_codelet import CodeletAdapter
from gxf.std import Allocator, MemoryStorageType, Receiver, Tensor, Timestamp, Transmitter

_scale = cupy.ElementwiseKernel("float32 x", "float32 y", "y = fmaf(x, 2.0f, 1.0f)", "jkompute_scale")


class CupyScale(CodeletAdapter):
    def start(self):
        p = self.get_params()
        self.rx = Receiver.get(self.context(), self.cid(), p["receiver"])
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), p["allocator"])
        self.streams = CudaStreamPool.get(self.context(), self.cid(), p["stream_pool"])
        self.stream_cid, stream = self.streams.allocate_stream()
        self.stream = cupy.cuda.ExternalStream(stream.ptr)

    def tick(self):
        msg = self.rx.receive()
        src = Tensor.get_from_entity(msg)
        out = MessageEntity(self.context())
        dst = Tensor.add_to_entity(out, "scaled")
        dst.reshape_custom(src.shape(), src.element_type(), 4, None, MemoryStorageType.kDevice, self.pool)
        with self.stream:
            # the input's producer stream is awaited by __cuda_array_interface__'s consumer rules
            _scale(cupy.asarray(src), cupy.asarray(dst))
        CudaStreamId.add_to_entity(out, "stream").stream_cid = self.stream_cid
        t = Timestamp.get_from_entity(msg)
        self.tx.publish(out, t.acqtime if t else 0)
