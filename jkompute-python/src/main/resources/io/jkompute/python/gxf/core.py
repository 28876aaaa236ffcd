"""Messages: GXF's Entity / MessageEntity over a jkompute graph Message."""
import collections

import _jkompute

_release = _jkompute.release
_release_all = _jkompute.release_all

# Handles of messages and tensors dropped while a tick runs: released together, in one call into the graph, when the
# tick returns (a codelet's per-frame objects die together there), instead of one call each. Outside a tick they are
# released at once, so nothing dropped is held past the end of the tick that dropped it.
_pending = collections.deque()
# one entry per tick running now (codelets of other threads may tick meanwhile): list append and pop are atomic under
# the GIL where a counter's += is not
_ticking = []


def _drop(h):
    if _ticking:
        _pending.append(h)
    else:
        _release(h)


def _flush():
    hs = []
    pop = _pending.popleft
    try:
        while True:
            hs.append(pop())  # popleft is atomic: a handle is taken by one flush only
    except IndexError:
        pass
    if hs:
        _release_all(*hs)


def batched(tick):
    """tick wrapped so that the handles it drops are released in one call when it returns."""
    ticking = _ticking

    def run():
        ticking.append(None)
        try:
            return tick()
        finally:
            ticking.pop()
            if _pending:
                _flush()
    return run


class Entity:
    """A message received or created in a tick. Its tensors and timestamp are read with gxf.std helpers
    (Tensor.get_from_entity, Timestamp.get_from_entity). Like a GXF entity handle it keeps the message alive: pooled
    memory goes back when the last Python reference (and the graph's) is gone."""
    # _ts: what the graph gave with the message at receive, (handle, acqtime, pubtime) or (handle) without a
    # timestamp, so Timestamp.get_from_entity needs no call; None when not known (a new message, or after a change)
    __slots__ = ("_ctx", "_h", "_ts", "__weakref__")

    def __init__(self, context, handle):
        self._ctx = context
        self._h = handle
        self._ts = None

    def __del__(self):
        h = self._h
        if h:
            self._h = 0
            _drop(h)

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
