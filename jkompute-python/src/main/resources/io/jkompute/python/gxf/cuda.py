"""GXF's CUDA extension from Python: CudaStreamPool handles and CudaStreamId.

Streams from Python need jkompute's CUDA graph components (GPUDevice, CudaStreamPool); in this build a
CudaStreamPool handle names its component and allocate_stream() raises NotImplementedError saying so."""
import _jkompute


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
        return CudaStreamPool(context, _lookup(context, cid, name, "Component"))

    def name(self):
        return _jkompute.path(self._h)

    def allocate_stream(self):
        raise NotImplementedError("CudaStreamPool.allocate_stream(): CUDA streams from Python codelets need "
                                  "jkompute's CUDA graph components, which this build does not have")

    def release_stream(self, cid):
        raise NotImplementedError("CudaStreamPool.release_stream(): no CUDA streams in this build")

    def __repr__(self):
        return "CudaStreamPool(%s)" % self.name()


class CudaStreamId:
    """GXF's CudaStreamId message component (stream_cid names the stream's component)."""

    def __init__(self, stream_cid=0):
        self.stream_cid = stream_cid

    @staticmethod
    def add_to_entity(entity, name=None):
        sid = CudaStreamId()
        _jkompute.add_object(entity._h, name or "", sid)
        return sid

    @staticmethod
    def get_from_entity(entity, name=None):
        found, sid = _jkompute.get_object(entity._h, name or "")
        if not found or not isinstance(sid, CudaStreamId):
            raise ValueError("message has no CudaStreamId%s" % ("" if name is None else " named " + name))
        return sid
