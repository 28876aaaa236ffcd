# The Python CUDA soak's codelets: per tick a CUDA tensor from a pool, filled by CuPy on a pool stream; the receiver
# checks every value through DLPack (no copy) and a per-message sum.
import cupy

from gxf.core import MessageEntity
from gxf.cuda import CudaStreamPool
from gxf.python_codelet import CodeletAdapter
from gxf.std import Allocator, MemoryStorageType, PrimitiveType, Receiver, Shape, Tensor, TensorDescription, Transmitter


class SoakTx(CodeletAdapter):
    def start(self):
        p = self.get_params()
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), p["allocator"])
        _, s = CudaStreamPool.get(self.context(), self.cid(), p["stream_pool"]).allocate_stream()
        self.stream = cupy.cuda.ExternalStream(s.ptr)
        self.description = TensorDescription("frame", MemoryStorageType.kDevice, Shape([1024]),
                                             PrimitiveType.kFloat32, 4)
        self.n = 0

    def tick(self):
        self.n += 1
        msg = MessageEntity(self.context())
        t = Tensor.add_to_entity(msg, "frame")
        t.reshape(self.description, self.pool)
        with self.stream:
            cupy.asarray(t).fill(self.n % 1000)
        self.stream.synchronize()
        self.tx.publish(msg, self.n)


class SoakRx(CodeletAdapter):
    def start(self):
        self.rx = Receiver.get(self.context(), self.cid(), self.get_params()["receiver"])
        self.n = 0

    def tick(self):
        self.n += 1
        a = cupy.from_dlpack(Tensor.get_from_entity(self.rx.receive(), "frame"))
        got = float(a.sum())
        if got != 1024.0 * (self.n % 1000):
            raise Exception("frame %d: sum %r" % (self.n, got))
