# The Python CUDA soak's codelets: per tick a CUDA tensor from a pool, filled on a pool stream by CuPy, on alternate
# ticks through the tensor as a CuPy array and through gxf.cuda.launch of a RawKernel on the tensor itself; the
# receiver checks every value through DLPack (no copy) and a per-message sum.
import cupy
import numpy

from gxf.core import MessageEntity
from gxf.cuda import CudaStreamPool, launch
from gxf.python_codelet import CodeletAdapter
from gxf.std import Allocator, MemoryStorageType, PrimitiveType, Receiver, Shape, Tensor, TensorDescription, Transmitter


class SoakTx(CodeletAdapter):
    def start(self):
        p = self.get_params()
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), p["allocator"])
        _, s = CudaStreamPool.get(self.context(), self.cid(), p["stream_pool"]).allocate_stream()
        self.pool_stream = s
        self.stream = cupy.cuda.ExternalStream(s.ptr)
        self.fill = cupy.RawKernel(r"""extern "C" __global__ void fill(float* p, float v, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v; }""", "fill")
        self.description = TensorDescription("frame", MemoryStorageType.kDevice, Shape([1024]),
                                             PrimitiveType.kFloat32, 4)
        self.n = 0

    def tick(self):
        self.n += 1
        msg = MessageEntity(self.context())
        t = Tensor.add_to_entity(msg, "frame")
        t.reshape(self.description, self.pool)
        if self.n % 2:
            with self.stream:
                cupy.asarray(t).fill(self.n % 1000)
        else:
            launch(self.fill, (4,), (256,), (t, numpy.float32(self.n % 1000), numpy.int32(1024)), self.pool_stream)
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
