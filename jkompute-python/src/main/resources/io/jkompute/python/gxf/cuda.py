"""GXF's CUDA extension from Python: CudaStreamPool, CudaStream and CudaStreamId.

A stream from allocate_stream() is a CUstream that CuPy and PyTorch take as an external stream:
cupy.cuda.ExternalStream(stream.ptr), torch.cuda.ExternalStream(stream.ptr)."""
import ctypes
import struct
import threading

import _jkompute
from gxf.std import Tensor, _new


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
        _jkompute.add_stream_id(self._entity._h, self._name, int(cid))
        self._cid = int(cid)

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


# launch(): a CuPy RawKernel started with CUDA's own cuLaunchKernel (cupy.cuda.driver.launchKernel) on a parameter
# buffer packed in place. RawKernel.__call__ builds its argument list and enters the stream per call, which costs more
# than the rest of a codelet's tick (about 8-10 us against about 4 us on an NVIDIA H200); the kernel is the same
# compiled function either way. Per thread, a plan per (kernel, device, argument types): the function pointer, a
# struct packing the arguments into the buffer, which arguments are tensors and which CuPy arrays. A kernel's last
# plan is also kept under the kernel alone: a launch with the same argument types as the last one (the usual case,
# frame after frame) checks each argument's type against it instead of building the full key.
_local = threading.local()
_PLANS_MAX = 256


class _Plan:
    __slots__ = ("kernel", "function", "pack", "view", "raw", "params", "address", "types", "tensors", "arrays",
                 "by_value")

    def __init__(self, kernel, types):
        import cupy
        if isinstance(kernel, cupy.RawKernel):
            fn = kernel.kernel  # compiled (on first use) for the current device, as RawKernel.__call__ does
        elif isinstance(kernel, cupy.cuda.function.Function):
            fn = kernel
        else:
            raise TypeError("launch takes a cupy.RawKernel or cupy.cuda.Function, got %s" % type(kernel).__name__)
        self.kernel = kernel  # kept alive, so that its id (part of the plan's key) is not reused meanwhile
        self.function = fn.ptr
        fmt, tensors, arrays, by_value = "=", [], [], []
        for k, t in enumerate(types):
            code = _slot(t)
            if code is not None:
                by_value.append(k)
            else:
                if issubclass(t, Tensor):
                    tensors.append(k)
                elif _is_cupy_array(t):
                    arrays.append(k)
                else:
                    raise TypeError("kernel argument %d of type %s: give Tensors, CuPy arrays or numpy scalars"
                                    % (k, t.__name__))
                code = "Q"
            fmt += code
        self.types = types
        self.tensors = tuple(tensors)
        self.arrays = tuple(arrays)
        self.by_value = tuple(by_value)
        # 8 bytes per argument, each slot's address in the void*[] cuLaunchKernel reads (it copies the values)
        n = max(len(types), 1)
        self.raw = (ctypes.c_char * (8 * n))()
        self.view = memoryview(self.raw).cast("B")
        self.pack = struct.Struct(fmt).pack_into
        base = ctypes.addressof(self.raw)
        self.params = (ctypes.c_void_p * n)(*[base + 8 * k for k in range(n)])
        self.address = ctypes.addressof(self.params)


def _slot(t):
    """The struct format of an argument type passed by value: numpy scalars as their own type, Python int as long
    long, float as double; None for tensors and arrays (a device pointer)."""
    import numpy
    return {numpy.int8: "b7x", numpy.uint8: "B7x", numpy.int16: "h6x", numpy.uint16: "H6x", numpy.int32: "i4x",
            numpy.uint32: "I4x", numpy.int64: "q", numpy.uint64: "Q", numpy.float16: "e6x", numpy.float32: "f4x",
            numpy.float64: "d", numpy.bool_: "?7x", bool: "?7x", int: "q", float: "d"}.get(t)


def _is_cupy_array(t):
    import cupy
    return issubclass(t, cupy.ndarray)


def _enter(device):
    """This thread's plans for device, with the device's primary context (the one CuPy and jkompute share) made
    current for the driver call, as CuPy's own launch runs in the current device's context."""
    import cupy
    cupy.cuda.runtime.setDevice(device)
    state = getattr(_local, "state", None)
    plans = state[1] if state is not None else {}
    _local.state = (device, plans)
    return plans


def launch(kernel, grid, block, args, stream, shared_mem=0):
    """Runs a CuPy kernel (cupy.RawKernel, or a cupy.cuda.Function) on stream (a CudaStream from allocate_stream),
    as kernel(grid, block, args) in `with cupy.cuda.ExternalStream(stream.ptr)` does, with CUDA tensors among args
    taken by their device pointer: work another stream queued on such a tensor is finished first and the tensor
    records stream, as as_cupy does, in the same call to the graph. grid and block are an int or a tuple of up to 3
    ints; args a tuple of Tensors, CuPy arrays and numpy scalars (Python int and float are passed as int64 and
    float64). Each argument takes one 8-byte slot: kernels with struct arguments need
    RawKernel.__call__. The stream's device becomes the calling thread's current CUDA device (its primary context,
    which CuPy and jkompute share). jkompute's addition to GXF's API; the fast path for a kernel launched every
    frame."""
    cid = stream.cid
    if not cid:
        raise ValueError("launch needs a stream from CudaStreamPool.allocate_stream()")
    device = stream.device
    state = getattr(_local, "state", None)
    plans = state[1] if state is not None and state[0] == device else _enter(device)
    plan = plans.get(id(kernel))
    if plan is None or plan.kernel is not kernel:
        plan = _plan(plans, kernel, device, args)
    filled = _arguments(plan, args, cid)
    if filled is None:  # an argument's type differs from the kernel's last launch
        plan = _plan(plans, kernel, device, args)
        filled = _arguments(plan, args, cid)
    values, uses = filled
    plan.pack(plan.view, 0, *values)
    if uses:
        _cuda_use(*uses)
    # a 1-D grid and block (the per-frame case) without _dims' call
    if type(grid) is tuple and len(grid) == 1:
        gx, gy, gz = grid[0], 1, 1
    else:
        gx, gy, gz = _dims(grid)
    if type(block) is tuple and len(block) == 1:
        bx, by, bz = block[0], 1, 1
    else:
        bx, by, bz = _dims(block)
    _launch_kernel(plan.function, gx, gy, gz, bx, by, bz, shared_mem, stream.ptr, plan.address, 0)


def _arguments(plan, args, cid):
    """(the values to pack, the cuda_use call's arguments or None): tensors and CuPy arrays as their device pointers;
    None when an argument's type is not the plan's."""
    types = plan.types
    if len(args) != len(types):
        return None
    for k in plan.by_value:
        if type(args[k]) is not types[k]:
            return None
    values = list(args)
    uses = None
    if plan.tensors:
        uses = [cid]
        for k in plan.tensors:
            t = args[k]
            if type(t) is not types[k]:
                return None
            info = t._info
            if info is None or info[6] != "cuda":
                info = t._cuda()
            values[k] = info[0]
            uses.append(t._h)
    for k in plan.arrays:
        a = args[k]
        if type(a) is not types[k]:
            return None
        values[k] = a.data.ptr
    return values, uses


def _plan(plans, kernel, device, args):
    """The plan for these argument types (made once per kernel, device and types), now the kernel's last plan."""
    key = (id(kernel), device, *map(type, args))
    plan = plans.get(key)
    if plan is None or plan.kernel is not kernel:
        if len(plans) >= _PLANS_MAX:
            plans.clear()
        plan = plans[key] = _Plan(kernel, key[2:])
    plans[id(kernel)] = plan
    return plan


def _launch_kernel(*args):
    global _launch_kernel
    import cupy
    _launch_kernel = cupy.cuda.driver.launchKernel
    _launch_kernel(*args)


_cuda_use = _jkompute.cuda_use


def _dims(d):
    if type(d) is int:
        return d, 1, 1
    n = len(d)
    if n == 1:
        return d[0], 1, 1
    if n == 2:
        return d[0], d[1], 1
    if n == 3:
        return d[0], d[1], d[2]
    raise ValueError("grid and block have 1 to 3 dimensions, got %r" % (d,))
