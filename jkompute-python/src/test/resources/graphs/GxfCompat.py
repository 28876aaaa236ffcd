# GXF binding details that GXF's own Python codelet tests rely on.
import numpy as np

from gxf.core import MessageEntity
from gxf.python_codelet import CodeletAdapter
from gxf.std import Allocator, MemoryStorageType, PrimitiveType, Shape, Tensor, Transmitter


class NpArrayTx(CodeletAdapter):
    """Per tick n (from 0): Tensor.add_np_array_as_tensor_to_entity with a non-contiguous int64 [2, 3] view (the
    columns of [[0, 1, 2], [3, 4, 5]] + 10 n reversed), which is then overwritten: the tensor 'facts' must hold a
    copy of the values it had when added. Published with acqtime n."""

    def start(self):
        p = self.get_params()
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), p["allocator"])
        self.n = 0

    def tick(self):
        msg = MessageEntity(self.context())
        base = np.arange(6, dtype=np.int64).reshape(2, 3) + 10 * self.n
        src = base[:, ::-1]
        t = Tensor.add_np_array_as_tensor_to_entity(msg, "facts", src, self.pool)
        base[...] = -1
        assert t.shape() == Shape([2, 3]), t.shape()
        assert t.element_type() == PrimitiveType.kInt64, t.element_type()
        assert t.storage_type() == MemoryStorageType.kHost, t.storage_type()
        assert t.strides() == [24, 8], t.strides()
        assert Tensor.get_from_entity(msg, "facts").shape() == Shape([2, 3])
        self.tx.publish(msg, self.n)
        self.n += 1


class ComplexTx(CodeletAdapter):
    """Per tick n: complex tensors as GXF's complex tests make them: 'c64' (complex64 [2], copied into the pool by
    add_np_array_as_tensor_to_entity) and 'c128' (complex128 [2, 1], wrapped by Tensor.as_tensor), values shifted
    by n."""

    def start(self):
        p = self.get_params()
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), p["allocator"])
        self.n = 0

    def tick(self):
        msg = MessageEntity(self.context())
        c64 = np.array([1 + 2j, -3.5 + 0.25j], dtype=np.complex64) + self.n
        t = Tensor.add_np_array_as_tensor_to_entity(msg, "c64", c64, self.pool)
        assert t.element_type() == PrimitiveType.kComplex64 and t.bytes_per_element() == 8, t
        c128 = np.array([[1e300 + 1j], [2 - 1e-300j]], dtype=np.complex128) + self.n
        Tensor.add_to_entity(msg, Tensor.as_tensor(c128), "c128")
        self.tx.publish(msg, self.n)
        self.n += 1


class ComplexRx(CodeletAdapter):
    """Checks ComplexTx's tensors through numpy (DLPack and the array interface) and GXF's get_tensor_info(), then
    forwards the message."""

    def start(self):
        self.rx = self.get_receivers()[0]
        self.tx = self.get_transmitters()[0]
        self.n = 0

    def tick(self):
        msg = self.rx.receive()
        c64 = Tensor.get_from_entity(msg, "c64")
        c128 = Tensor.get_from_entity(msg, "c128")
        expected64 = np.array([1 + 2j, -3.5 + 0.25j], dtype=np.complex64) + self.n
        expected128 = np.array([[1e300 + 1j], [2 - 1e-300j]], dtype=np.complex128) + self.n
        np.testing.assert_array_equal(np.asarray(c64), expected64)
        np.testing.assert_array_equal(np.from_dlpack(c128), expected128)
        assert np.asarray(c64).dtype == np.complex64 and np.asarray(c128).dtype == np.complex128
        info = c128.get_tensor_info()
        assert info[1:] == (32, np.dtype(np.complex128), 2, [2, 1], [16, 16]), info[1:]
        assert c128.element_type() == PrimitiveType.kComplex128, c128.element_type()
        self.tx.publish(msg, self.n)
        self.n += 1
