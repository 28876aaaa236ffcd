"""GXF's CUDA extension from Python: CudaStreamPool, CudaStream and CudaStreamId.

A stream from allocate_stream() is a CUstream that CuPy and PyTorch take as an external stream:
cupy.cuda.ExternalStream(stream.ptr), torch.cuda.ExternalStream(stream.ptr)."""
import _jkompute
from gxf.std import Tensor, _new

_add_stream_id = _jkompute.add_stream_id


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

    # gives the handle in _h back with no Python frame
    __del__ = _jkompute.handle_finalizer

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
    __slots__ = ("_entity", "_name", "_cid")

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
        # set per frame: the graph reads the cid as int() would, so an int needs no conversion here
        _add_stream_id(self._entity, self._name, cid)
        self._cid = cid if type(cid) is int else int(cid)

    def stream(self):
        """The CudaStream named by stream_cid (None when that stream no longer exists)."""
        s = _jkompute.stream_of_cid(self._cid)
        return None if s is None else CudaStream(s[0], s[1], self._cid)

    @staticmethod
    def add_to_entity(entity, name=None):
        s = _new(CudaStreamId)  # per frame: no __init__ frame
        s._entity = entity
        s._name = name or ""
        s._cid = 0
        return s

    @staticmethod
    def get_from_entity(entity, name=None):
        cid = _jkompute.stream_id(entity, name or "")
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


# launch(): a CuPy RawKernel started with CUDA's own cuLaunchKernel on the launch stream, in one call to the graph,
# which reads the arguments, orders the tensors on the stream and packs each argument in an 8-byte slot itself.
# RawKernel.__call__ builds its argument list and enters the stream per call, and the same steps in Python (a plan
# per kernel, packing, a graph call for the tensors and CuPy's launchKernel) cost more than the driver's launch,
# every frame. The graph asks the two helpers below only for what it has not seen: a kernel's function on a device,
# an argument type's kind.
_launch = _jkompute.launch


def launch(kernel, grid, block, args, stream, shared_mem=0):
    """Runs a CuPy kernel (cupy.RawKernel, or a cupy.cuda.Function) on stream (a CudaStream from allocate_stream),
    as kernel(grid, block, args) in `with cupy.cuda.ExternalStream(stream.ptr)` does, with CUDA tensors among args
    taken by their device pointer: work another stream queued on such a tensor is finished first and the tensor
    records stream, as as_cupy does, in the same call to the graph. grid and block are an int or a tuple of up to 3
    ints; args a tuple (or list) of Tensors, CuPy arrays and numpy scalars (Python int and float are passed as int64
    and float64, bool as one byte). Each argument takes one 8-byte slot: kernels with struct arguments need
    RawKernel.__call__. The stream's device becomes the calling thread's current CUDA device (its primary context,
    which CuPy and jkompute share). jkompute's addition to GXF's API; the fast path for a kernel launched every
    frame."""
    _launch(kernel, grid, block, args, stream, shared_mem)


def _function(kernel, device):
    """The kernel's CUfunction on device, compiled there on first use as RawKernel.__call__ does; device becomes the
    thread's current CUDA device. Asked once per kernel and device."""
    import cupy
    cupy.cuda.runtime.setDevice(device)
    if isinstance(kernel, cupy.RawKernel):
        return kernel.kernel.ptr
    if isinstance(kernel, cupy.cuda.function.Function):
        return kernel.ptr
    raise TypeError("launch takes a cupy.RawKernel or cupy.cuda.Function, got %s" % type(kernel).__name__)


# kinds as the graph numbers them: 0 tensor, 1 CuPy array, then the by-value types (numpy's added at first use)
_KINDS = {bool: 13, int: 8, float: 12}


def _argument_kind(t, index):
    """How argument index of type t is passed. Asked once per type."""
    if len(_KINDS) == 3:
        try:
            import numpy as np
            _KINDS.update({np.int8: 2, np.uint8: 3, np.int16: 4, np.uint16: 5, np.int32: 6, np.uint32: 7, np.int64: 8,
                           np.uint64: 9, np.float16: 10, np.float32: 11, np.float64: 12, np.bool_: 13})
        except ImportError:
            pass
    kind = _KINDS.get(t)
    if kind is not None:
        return kind
    if issubclass(t, Tensor):
        return 0
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None and issubclass(t, cupy.ndarray):
        return 1
    raise TypeError("kernel argument %d of type %s: give Tensors, CuPy arrays or numpy scalars" % (index, t.__name__))

