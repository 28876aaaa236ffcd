from gxf.core import MessageEntity
from gxf.python_codelet import CodeletAdapter
from gxf.std import Allocator, MemoryStorageType, PrimitiveType, Tensor


class Churn(CodeletAdapter):
    """Per tick: a new message with a tensor from a one-block pool, dropped unpublished when the tick returns. The
    next tick's allocation finds the block free only if the dropped message and tensor handles were released."""

    def start(self):
        self.pool = Allocator.get(self.context(), self.cid(), self.get_params()["allocator"])

    def tick(self):
        msg = MessageEntity(self.context())
        t = Tensor.add_to_entity(msg, "a")
        t.reshape_custom([4], PrimitiveType.kFloat32, 4, None, MemoryStorageType.kHost, self.pool)
