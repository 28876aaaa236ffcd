"""GXF's CUDA extension from Python: CudaStreamPool, CudaStream and CudaStreamId.

A stream from allocate_stream() is a CUstream that CuPy and PyTorch take as an external stream:
cupy.cuda.ExternalStream(stream.ptr), torch.cuda.ExternalStream(stream.ptr)."""
import _jkompute


class CudaStream:
    """A stream of a CudaStreamPool: ptr is the native CUstream handle, device its CUDA device, cid the stream's
    CudaStreamId cid (0 when not known)."""
    __slots__ = ("ptr", "device", "cid")

    def __init__(self, ptr, device, cid=0):
        self.ptr = ptr
        self.device = device
        self.cid = cid

    def __int__(self):
        return self.ptr

    def __repr__(self):
        return "CudaStream(0x%x, device %d)" % (self.ptr, self.device)


class CudaStreamPool:
    def __init__(self, context, handle):
        self._ctx = context
        self._h = handle

    def __del__(self):
        h = self._h
        if h:
            self._h = 0
            _jkompute.release(h)

    @staticmethod
    def get(context, cid, name):
        from gxf.std import _lookup
        return CudaStreamPool(context, _lookup(context, cid, name, "CudaStreamPool"))

    def name(self):
        return _jkompute.path(self._h)

    def allocate_stream(self):
        """(stream_cid, CudaStream), as GXF's binding returns (cid, stream); past max_size it raises ValueError."""
        from gxf.std import _java_error
        try:
            cid, ptr, device = _jkompute.allocate_stream(self._h)
        except _java_error() as e:
            raise ValueError(e.args[0]) from None
        return cid, CudaStream(ptr, device, cid)

    def release_stream(self, cid):
        _jkompute.release_stream(self._h, int(cid))

    def __repr__(self):
        return "CudaStreamPool(%s)" % self.name()


class CudaStreamId:
    """GXF's CudaStreamId in a message: add_to_entity(msg, name) then set stream_cid (a cid from allocate_stream);
    Java codelets and CudaStreamSync see the stream."""

    def __init__(self, entity=None, name="", stream_cid=0):
        self._entity = entity
        self._name = name
        self._cid = stream_cid

    @property
    def stream_cid(self):
        return self._cid

    @stream_cid.setter
    def stream_cid(self, cid):
        if self._entity is None:
            raise ValueError("a CudaStreamId from CudaStreamId.add_to_entity(msg, name) is needed")
        _jkompute.add_stream_id(self._entity._h, self._name, int(cid))
        self._cid = int(cid)

    def stream(self):
        """The CudaStream named by stream_cid (None when that stream no longer exists)."""
        s = _jkompute.stream_of_cid(self._cid)
        return None if s is None else CudaStream(s[0], s[1], self._cid)

    @staticmethod
    def add_to_entity(entity, name=None):
        return CudaStreamId(entity, name or "")

    @staticmethod
    def get_from_entity(entity, name=None):
        cid = _jkompute.stream_id(entity._h, name or "")
        if cid is None:
            raise ValueError("message has no CudaStreamId%s" % ("" if name is None else " named " + name))
        return CudaStreamId(None, name or "", cid)


# CuPy arrays over CUDA tensor memory, by (pointer, shape, strides, element type): a pool's blocks come back frame
# after frame, and building a CuPy array over foreign memory (UnownedMemory, MemoryPointer, ndarray) costs more than
# the rest of a codelet's tick. The arrays only point at the memory; the tensor's message owns it.
_VIEWS = {}
_VIEWS_MAX = 256


def as_cupy(tensors, stream):
    """CuPy arrays over CUDA tensors' memory (no copy) for use on stream (a CudaStream from allocate_stream):
    as_cupy(tensor, stream) gives one array, as_cupy((x, y), stream) a tuple, in one call to the graph. Work another
    stream queued on a tensor is finished first, and each tensor records stream, so that its pool block is neither
    reused nor read downstream before that stream's work has run. An array is the same object for the same block,
    shape and type: do not change its shape or strides in place, and do not keep it past the tensor's message.
    jkompute's addition to GXF's API (cupy.asarray(tensor) works too, with a host wait for the producer's stream and
    a new array per call)."""
    if not stream.cid:
        raise ValueError("as_cupy needs a stream from CudaStreamPool.allocate_stream()")
    if isinstance(tensors, (tuple, list)):
        infos = [t._cuda() for t in tensors]
        _jkompute.cuda_use(stream.cid, *[t._h for t in tensors])
        return tuple(_view(info) for info in infos)
    info = tensors._cuda()
    _jkompute.cuda_use(stream.cid, tensors._h)
    return _view(info)


def _view(info):
    key = (info[0], info[3], info[4], info[2])
    a = _VIEWS.get(key)
    if a is None:
        import cupy
        memory = cupy.cuda.UnownedMemory(info[0], info[1], None, info[7])
        a = cupy.ndarray(info[3], info[2], cupy.cuda.MemoryPointer(memory, 0), info[4])
        if len(_VIEWS) >= _VIEWS_MAX:
            _VIEWS.clear()
        _VIEWS[key] = a
    return a
