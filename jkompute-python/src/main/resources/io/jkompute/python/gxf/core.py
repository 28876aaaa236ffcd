"""Messages: GXF's Entity / MessageEntity over a jkompute graph Message."""
import _jkompute

_new_message = _jkompute.new_message
_int_new = int.__new__


class Entity(int):
    """A message received or created in a tick. Its tensors and timestamp are read with gxf.std helpers
    (Tensor.get_from_entity, Timestamp.get_from_entity). Like a GXF entity handle it keeps the message alive: pooled
    memory goes back when the last Python reference (and the graph's) is gone.

    The object is its handle (an int subclass, compared and hashed by identity): made by int's own constructor it
    costs no Python-level __init__, its truth is the handle's (0: no message) without a Python __bool__, and the
    graph calls take it as the handle itself. With the C-level __del__ below, that took a fifth off a Python ping's
    CPU time per message (a Python __init__, __bool__ and __del__ per message before)."""
    __slots__ = ()
    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    # GXF's helpers take a context with the handle; messages need none of their own
    _ctx = None

    def __new__(cls, context=None, handle=0):
        return _int_new(cls, handle)

    # the handle goes back when the Entity dies: a C-level method of int calling into the graph, no Python frame
    __del__ = _jkompute.entity_finalizer

    # the handle as a plain int: int() itself as the getter, no Python frame
    _h = property(int)

    def tensor_names(self):
        from gxf.std import Tensor
        return [t.name() for t in Tensor.find_all_from_entity(self)]

    def __repr__(self):
        return "Entity(%d)" % self

    __str__ = __repr__


def _received(handle):
    """A received message: int's constructor straight away, no Python frame (Receiver.receive's hot path)."""
    return _int_new(Entity, handle)


class MessageEntity(Entity):
    """A new, empty message: MessageEntity(self.context())."""
    __slots__ = ()

    def __new__(cls, context=None):
        return _int_new(cls, _new_message())
