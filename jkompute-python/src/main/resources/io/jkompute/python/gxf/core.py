"""Messages: GXF's Entity / MessageEntity over a jkompute graph Message."""
import _jkompute

_release = _jkompute.release


class Entity:
    """A message received or created in a tick. Its tensors and timestamp are read with gxf.std helpers
    (Tensor.get_from_entity, Timestamp.get_from_entity). Like a GXF entity handle it keeps the message alive: pooled
    memory goes back when the last Python reference (and the graph's) is gone."""
    __slots__ = ("_ctx", "_h", "__weakref__")

    def __init__(self, context, handle):
        self._ctx = context
        self._h = handle

    def __del__(self):
        h = self._h
        if h:
            self._h = 0
            _release(h)

    def __bool__(self):
        return self._h != 0

    def tensor_names(self):
        from gxf.std import Tensor
        return [t.name() for t in Tensor.find_all_from_entity(self)]

    def __repr__(self):
        return "Entity(%d)" % self._h


class MessageEntity(Entity):
    """A new, empty message: MessageEntity(self.context())."""
    __slots__ = ()

    def __init__(self, context):
        Entity.__init__(self, context, _jkompute.new_message())
