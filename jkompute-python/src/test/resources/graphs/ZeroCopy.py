# numpy over tensor memory without a copy, both ways, checked by address and by writes.
import ctypes

import numpy as np

from gxf.core import MessageEntity
from gxf.python_codelet import CodeletAdapter
from gxf.std import (Allocator, MemoryStorageType, PrimitiveType, Shape, Tensor, TensorDescription, Transmitter,
                     Receiver)


def pointer(tensor):
    """The data pointer of get_tensor_info(), unwrapped as GXF's VerifyEqual.py does (a PyCapsule without a name)."""
    capsule, size, dtype, rank, dims, strides = tensor.get_tensor_info()
    ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
    ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return ctypes.pythonapi.PyCapsule_GetPointer(capsule, None)


class ZeroCopyTx(CodeletAdapter):
    def start(self):
        p = self.get_params()
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), p["allocator"])
        self.n = 0

    def tick(self):
        self.n += 1
        msg = MessageEntity(self.context())
        t = Tensor.add_to_entity(msg, "pooled")
        t.reshape(TensorDescription("pooled", MemoryStorageType.kHost, Shape([3, 4]), PrimitiveType.kFloat64, 8),
                  self.pool)
        a = np.asarray(t)
        assert a.dtype == np.float64 and a.shape == (3, 4), (a.dtype, a.shape)
        assert a.__array_interface__["data"][0] == pointer(t), "np.asarray copied"
        _, size, dtype, rank, dims, strides = t.get_tensor_info()
        assert (size, dtype, rank, dims, strides) == (96, np.dtype("float64"), 2, [3, 4], [32, 8]), \
            t.get_tensor_info()
        a[...] = np.arange(12).reshape(3, 4) * self.n
        assert t.memoryview()[2, 3] == 11 * self.n, "write through numpy not seen in the tensor"
        d = np.from_dlpack(t)
        assert d.__array_interface__["data"][0] == pointer(t), "from_dlpack copied"
        own = np.full((2, 2), self.n, dtype=np.int32)
        Tensor.add_to_entity(msg, Tensor.as_tensor(own), "own")
        added = Tensor.get_from_entity(msg, "own")
        assert pointer(added) == own.__array_interface__["data"][0], "as_tensor copied"
        self.tx.publish(msg, self.n)


class ZeroCopyRx(CodeletAdapter):
    def start(self):
        self.rx = Receiver.get(self.context(), self.cid(), self.get_params()["receiver"])
        self.kept = []

    def tick(self):
        msg = self.rx.receive()
        n = len(self.kept) + 1
        pooled = np.asarray(Tensor.get_from_entity(msg, "pooled"))
        own = np.asarray(Tensor.get_from_entity(msg, "own"))
        assert (pooled == np.arange(12).reshape(3, 4) * n).all(), pooled
        assert (own == n).all() and own.dtype == np.int32, own
        # an array kept past the tick keeps its message (and pool block) alive
        self.kept.append(pooled)

    def stop(self):
        for i, a in enumerate(self.kept):
            assert (a == np.arange(12).reshape(3, 4) * (i + 1)).all(), "kept array %d changed" % i
