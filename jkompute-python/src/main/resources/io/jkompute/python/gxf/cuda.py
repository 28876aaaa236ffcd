"""GXF's CUDA extension from Python: CudaStreamPool, CudaStream and CudaStreamId.

A stream from allocate_stream() is a CUstream that CuPy and PyTorch take as an external stream:
cupy.cuda.ExternalStream(stream.ptr), torch.cuda.ExternalStream(stream.ptr)."""
import _jkompute


class CudaStream:
    """A stream of a CudaStreamPool: ptr is the native CUstream handle, device its CUDA device."""
    __slots__ = ("ptr", "device")

    def __init__(self, ptr, device):
        self.ptr = ptr
        self.device = device

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
        return cid, CudaStream(ptr, device)

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
        return None if s is None else CudaStream(s[0], s[1])

    @staticmethod
    def add_to_entity(entity, name=None):
        return CudaStreamId(entity, name or "")

    @staticmethod
    def get_from_entity(entity, name=None):
        cid = _jkompute.stream_id(entity._h, name or "")
        if cid is None:
            raise ValueError("message has no CudaStreamId%s" % ("" if name is None else " named " + name))
        return CudaStreamId(None, name or "", cid)
