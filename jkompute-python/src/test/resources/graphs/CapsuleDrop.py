# A DLPack capsule dropped unconsumed: its ctypes destructor runs CPython's PyGILState_Ensure on the scheduler thread.
from gxf.python_codelet import CodeletAdapter
from gxf.core import MessageEntity
from gxf.std import Allocator, Tensor, TensorDescription, MemoryStorageType, Shape, PrimitiveType


class CapsuleDrop(CodeletAdapter):
    def start(self):
        self.pool = Allocator.get(self.context(), self.cid(), "pool")

    def tick(self):
        msg = MessageEntity(self.context())
        t = Tensor.add_to_entity(msg, "t")
        t.reshape(TensorDescription("t", MemoryStorageType.kHost, Shape([4]), PrimitiveType.kFloat32, 4), self.pool)
        capsule = t.__dlpack__()
        del capsule
