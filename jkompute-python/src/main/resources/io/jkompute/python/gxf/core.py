"""Messages: GXF's Entity / MessageEntity over a jkompute graph Message."""


class Entity:
    """A message received or created in a tick. Its tensors and timestamp are read with gxf.std helpers
    (Tensor.get_from_entity, Timestamp.get_from_entity). It lives until the tick that received or created it ends."""

    def __init__(self, context, handle):
        self._ctx = context
        self._j = handle

    def __bool__(self):
        return self._j is not None

    def tensor_names(self):
        return list(self._ctx.tensorNames(self._j))

    def __repr__(self):
        return "Entity(tensors=%s)" % self.tensor_names()


class MessageEntity(Entity):
    """A new, empty message: MessageEntity(self.context())."""

    def __init__(self, context):
        super().__init__(context, context.newMessage())
