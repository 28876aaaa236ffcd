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
