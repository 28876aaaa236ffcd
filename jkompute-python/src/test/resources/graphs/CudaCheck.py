# CuPy and PyTorch over a CUDA tensor of a jkompute pool: the pointer each library sees, written in place.
import ctypes

import numpy as np

from gxf.core import MessageEntity
from gxf.cuda import CudaStreamPool, as_cupy, launch
from gxf.python_codelet import CodeletAdapter
from gxf.std import Allocator, MemoryStorageType, PrimitiveType, Shape, Tensor, TensorDescription, Transmitter


ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class CudaCheck(CodeletAdapter):
    """Per tick n: a [256] float32 CUDA tensor 'device'; CuPy fills it with n (on a pool stream), PyTorch adds 0.5 in
    place; an int64 host tensor 'seen' records [tensor address, CuPy's pointer, PyTorch's pointer, DLPack pointer]."""

    def start(self):
        import cupy
        p = self.get_params()
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.device_pool = Allocator.get(self.context(), self.cid(), p["device_pool"])
        self.host_pool = Allocator.get(self.context(), self.cid(), p["host_pool"])
        self.streams = CudaStreamPool.get(self.context(), self.cid(), p["stream_pool"])
        _, s = self.streams.allocate_stream()
        self.gxf_stream = s
        self.stream = cupy.cuda.ExternalStream(s.ptr)
        self.torch = None
        if p.get("torch", False):
            import torch
            self.torch = torch
        self.n = 0
        # filled through gxf.cuda.launch: a float32 and an int32 after the tensor, each in its own 8-byte slot
        self.fill = cupy.RawKernel(r"""extern "C" __global__ void fill(float* p, float v, int n, double w) {
            int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v + (float) w; }""", "fill")

    def tick(self):
        import cupy
        self.n += 1
        msg = MessageEntity(self.context())
        t = Tensor.add_to_entity(msg, "device")
        t.reshape(TensorDescription("device", MemoryStorageType.kDevice, Shape([256]), PrimitiveType.kFloat32, 4),
                  self.device_pool)
        address = t.__cuda_array_interface__["data"][0]
        # as_cupy: the tensor's own pointer, the same cached array for the same block; get_tensor_info as GXF's
        v = as_cupy(t, self.gxf_stream)
        assert v.data.ptr == address and v.shape == (256,) and v.dtype == np.float32, (v.data.ptr, address)
        assert as_cupy((t,), self.gxf_stream)[0] is v, "as_cupy rebuilt the array of the same block"
        capsule, size, dtype, rank, dims, strides = t.get_tensor_info()
        assert ctypes.pythonapi.PyCapsule_GetPointer(capsule, None) == address, "get_tensor_info pointer"
        assert (size, dtype, rank, dims, strides) == (1024, np.dtype("float32"), 1, [256], [4]), t.get_tensor_info()
        launch(self.fill, (2,), (128,), (t, np.float32(self.n - 0.25), np.int32(256), 0.25), self.gxf_stream)
        self.stream.synchronize()
        with self.stream:
            c = cupy.asarray(t)
        assert (cupy.asnumpy(c) == self.n).all(), "gxf.cuda.launch fill"
        dl = cupy.from_dlpack(t)
        torch_ptr = 0
        if self.torch is not None:
            tt = self.torch.as_tensor(t, device="cuda")
            tt += 0.5
            self.torch.cuda.synchronize()
            torch_ptr = tt.data_ptr()
            tt2 = self.torch.from_dlpack(t)
            assert tt2.data_ptr() == address, "torch.from_dlpack copied"
        else:
            c += 0.5
            cupy.cuda.runtime.deviceSynchronize()
        seen = Tensor.add_to_entity(msg, "seen")
        seen.reshape(TensorDescription("seen", MemoryStorageType.kHost, Shape([4]), PrimitiveType.kInt64, 8),
                     self.host_pool)
        np.asarray(seen)[...] = [address, c.data.ptr, torch_ptr, dl.data.ptr]
        host = np.asarray(t.to_host())
        assert (host == self.n + 0.5).all(), host[:4]
        self.tx.publish(msg, self.n)
