# gxf.cuda.launch's argument kinds and its errors, each tick: every by-value type lands in the kernel's parameter as
# numpy would store it, CUDA tensors and CuPy arrays as their device pointers, and each bad call raises the type a
# Python caller expects, naming what was wrong, without launching anything.
import numpy as np

from gxf.core import MessageEntity
from gxf.cuda import CudaStreamPool, launch
from gxf.python_codelet import CodeletAdapter
from gxf.std import Allocator, MemoryStorageType, PrimitiveType, Shape, Tensor

_SOURCE = r"""
extern "C" __global__ void kinds(unsigned long long* out, signed char a, unsigned char b, short c,
        unsigned short d, int e, unsigned int f, long long g, unsigned long long h, unsigned short half_bits,
        float i, double j, bool k, long long python_int, double python_float, bool python_bool, float* array) {
    out[0] = (unsigned long long) (long long) a; out[1] = b; out[2] = (unsigned long long) (long long) c;
    out[3] = d; out[4] = (unsigned long long) (long long) e; out[5] = f; out[6] = (unsigned long long) g;
    out[7] = h; out[8] = half_bits; out[9] = __double_as_longlong((double) i); out[10] = __double_as_longlong(j);
    out[11] = k; out[12] = (unsigned long long) python_int; out[13] = __double_as_longlong(python_float);
    out[14] = python_bool; out[15] = (unsigned long long) array;
}
extern "C" __global__ void fill(float* p, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v;
}
"""


class LaunchCheck(CodeletAdapter):
    def start(self):
        import cupy
        p = self.get_params()
        self.device_pool = Allocator.get(self.context(), self.cid(), p["device_pool"])
        self.host_pool = Allocator.get(self.context(), self.cid(), p["host_pool"])
        self.streams = CudaStreamPool.get(self.context(), self.cid(), p["stream_pool"])
        _, self.stream = self.streams.allocate_stream()
        module = cupy.RawModule(code=_SOURCE)
        self.kinds = module.get_function("kinds")
        self.fill = cupy.RawKernel(_SOURCE, "fill")
        self.array = cupy.zeros(4, dtype=cupy.float32)
        self.n = 0

    def tick(self):
        import cupy
        self.n += 1
        msg = MessageEntity(self.context())
        out = Tensor.add_to_entity(msg, "out")
        out.reshape_custom(Shape([16]), PrimitiveType.kUnsigned64, 8, None, MemoryStorageType.kDevice,
                           self.device_pool)
        values = Tensor.add_to_entity(msg, "values")
        values.reshape_custom(Shape([64]), PrimitiveType.kFloat32, 4, None, MemoryStorageType.kDevice,
                              self.device_pool)
        args = [out, np.int8(-5), np.uint8(250), np.int16(-300), np.uint16(65000), np.int32(-70000),
                np.uint32(4000000000), np.int64(-2 ** 40), np.uint64(2 ** 63 + 5), np.float16(1.5),
                np.float32(2.25), np.float64(-3.125), np.bool_(True), 7 + self.n, 0.5, True, self.array]
        launch(self.kinds, 1, 1, tuple(args), self.stream)
        cupy.cuda.ExternalStream(self.stream.ptr).synchronize()
        got = np.frombuffer(out.tobytes(), dtype=np.uint64)
        bits = lambda v: int(np.float64(v).view(np.uint64))
        want = [2 ** 64 - 5, 250, 2 ** 64 - 300, 65000, 2 ** 64 - 70000, 4000000000, 2 ** 64 - 2 ** 40,
                2 ** 63 + 5, 0x3E00, bits(2.25), bits(-3.125), 1, 7 + self.n, bits(0.5), 1, self.array.data.ptr]
        assert [int(v) for v in got] == want, [hex(int(v)) for v in got]

        # a list of arguments, a 3-D grid and block given as lists, two kernels alternating
        launch(self.fill, [1, 1, 1], [64, 1, 1], [values, np.float32(self.n + 0.5), np.int32(64)], self.stream)
        cupy.cuda.ExternalStream(self.stream.ptr).synchronize()
        assert (np.frombuffer(values.tobytes(), dtype=np.float32) == self.n + 0.5).all()
        launch(self.kinds, (1,), (1,), tuple(args), self.stream)

        unallocated = Tensor.add_to_entity(msg, "unallocated")
        host = Tensor.add_to_entity(msg, "host")
        host.reshape_custom(Shape([4]), PrimitiveType.kFloat32, 4, None, MemoryStorageType.kHost, self.host_pool)
        bad = [
            (TypeError, "kernel argument 1 of type str", lambda: launch(self.fill, 1, 64, (values, "x", 1),
                                                                       self.stream)),
            (ValueError, "launch needs a stream", lambda: launch(self.fill, 1, 64, (values, 1.0, 1), object())),
            (ValueError, "grid dimensions must be 1 to 2^31-1, got 0",
             lambda: launch(self.fill, (0,), 64, (values, 1.0, 1), self.stream)),
            (ValueError, "block has 1 to 3 dimensions, got 4",
             lambda: launch(self.fill, 1, (1, 1, 1, 1), (values, 1.0, 1), self.stream)),
            (TypeError, "grid must be an int or a tuple", lambda: launch(self.fill, "1", 64, (values, 1.0, 1),
                                                                        self.stream)),
            (OverflowError, "", lambda: launch(self.fill, 1, 64, (values, 1.0, 2 ** 70), self.stream)),
            (TypeError, "launch takes a cupy.RawKernel", lambda: launch(object(), 1, 64, (values,), self.stream)),
            (ValueError, "kernel argument 0: the tensor has no memory yet",
             lambda: launch(self.fill, 1, 64, (unallocated, 1.0, 1), self.stream)),
            (ValueError, "kernel argument 0: the tensor is not in CUDA memory",
             lambda: launch(self.fill, 1, 64, (host, 1.0, 1), self.stream)),
            (TypeError, "launch's args must be a tuple or a list", lambda: launch(self.fill, 1, 64, values,
                                                                                 self.stream)),
            (ValueError, "shared_mem must be 0 to 2^31-1 bytes, got -1",
             lambda: launch(self.fill, 1, 64, (values, 1.0, 1), self.stream, -1)),
        ]
        for kind, text, call in bad:
            try:
                call()
            except kind as e:
                assert text in str(e), (kind, text, str(e))
            else:
                raise AssertionError("no %s for %s" % (kind.__name__, text))
        # nothing above launched: the values are still the fill's
        cupy.cuda.ExternalStream(self.stream.ptr).synchronize()
        assert (np.frombuffer(values.tobytes(), dtype=np.float32) == self.n + 0.5).all()
