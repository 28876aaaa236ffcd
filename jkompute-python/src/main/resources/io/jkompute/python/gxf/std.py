"""GXF's standard extension from Python: queues, clocks, allocators, scheduling terms, tensors and timestamps."""
import collections
import enum
import functools

import _jkompute
from gxf.core import Entity, _received

_receive = _jkompute.receive
_publish = _jkompute.publish
_tensor_with_info = _jkompute.tensor_with_info
_add_tensor = _jkompute.add_tensor


class _Context:
    """GXF's context as self.context() gives it: the graph the codelet runs in (a handle)."""
    __slots__ = ("_h",)

    def __init__(self, handle):
        self._h = handle

    # gives the handle in _h back with no Python frame
    __del__ = _jkompute.handle_finalizer


def _java_error():
    import _jkompute_engine
    return _jkompute_engine.JavaError


def _lookup(context, cid, name, kind):
    try:
        return _jkompute.lookup(context._h, int(cid), str(name), kind)
    except _java_error() as e:
        # raised here, the error names the user's line that asked for the handle
        raise ValueError(e.args[0]) from None


class Component:
    """A graph component by handle: Component.get(context, cid, "name" or "entity/name")."""
    _kind = "Component"
    __slots__ = ("_ctx", "_h", "__weakref__")

    def __init__(self, context, handle):
        self._ctx = context
        self._h = handle

    # gives the handle in _h back with no Python frame
    __del__ = _jkompute.handle_finalizer

    @classmethod
    def get(cls, context, cid, name):
        return cls(context, _lookup(context, cid, name, cls._kind))

    def name(self):
        return _jkompute.path(self._h)

    def __eq__(self, other):
        return isinstance(other, Component) and self.name() == other.name()

    def __hash__(self):
        return hash(self.name())

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self.name())


class _Queue(Component):
    __slots__ = ()

    def size(self):
        return _jkompute.queue_sizes(self._h)[0]

    def back_size(self):
        return _jkompute.queue_sizes(self._h)[1]

    def capacity(self):
        return _jkompute.queue_sizes(self._h)[2]


class Receiver(_Queue):
    _kind = "Receiver"
    __slots__ = ()

    def receive(self):
        """The oldest message, or None when there is none (GXF returns a null entity; None is falsy)."""
        h = _receive(self._h)
        return _received(h) if h else None

    def sync(self):
        _jkompute.sync(self._h)


class Transmitter(_Queue):
    _kind = "Transmitter"
    __slots__ = ()

    def publish(self, message, acq_timestamp=0):
        """Publishes with a timestamp (acqtime as given, pubtime the graph clock's now). Failures raise."""
        try:
            # an Entity is its own handle; an int timestamp passes as it is
            _publish(self._h, message, acq_timestamp)
        except TypeError:
            if not isinstance(message, Entity):
                raise TypeError("publish() takes a MessageEntity, got %s" % type(message).__name__) from None
            _publish(self._h, message, int(acq_timestamp))
        return "GXF_SUCCESS"


class Clock(Component):
    _kind = "Clock"
    __slots__ = ()

    def time(self):
        return _jkompute.clock_time(self._h)

    def timestamp(self):
        return _jkompute.clock_timestamp(self._h)


class Allocator(Component):
    _kind = "Allocator"
    __slots__ = ()


class SchedulingConditionType(enum.Enum):
    NEVER = "NEVER"
    READY = "READY"
    WAIT = "WAIT"
    WAIT_TIME = "WAIT_TIME"
    WAIT_EVENT = "WAIT_EVENT"


class SchedulingTerm(Component):
    _kind = "SchedulingTerm"
    __slots__ = ()

    def check(self, timestamp=0):
        """The term's condition now (GXF's check()): a SchedulingConditionType."""
        return SchedulingConditionType(_jkompute.term(self._h, "check", int(timestamp)))


class BooleanSchedulingTerm(SchedulingTerm):
    _kind = "BooleanSchedulingTerm"
    __slots__ = ()

    def enable_tick(self):
        _jkompute.term(self._h, "enable_tick", 0)

    def disable_tick(self):
        _jkompute.term(self._h, "disable_tick", 0)

    def check_tick_enabled(self):
        return _jkompute.term(self._h, "check_tick_enabled", 0)

    # the names GXF's pybind module gives the same three
    make_enable_tick = enable_tick
    make_disable_tick = disable_tick
    check_tick_enable = check_tick_enabled


class CountSchedulingTerm(SchedulingTerm):
    _kind = "CountSchedulingTerm"
    __slots__ = ()

    def remaining(self):
        return _jkompute.term(self._h, "remaining", 0)


class PeriodicSchedulingTerm(SchedulingTerm):
    _kind = "PeriodicSchedulingTerm"
    __slots__ = ()

    def recess_period_ns(self):
        return _jkompute.term(self._h, "recess_period_ns", 0)

    def last_run_timestamp(self):
        return _jkompute.term(self._h, "last_run_timestamp", 0)


class TargetTimeSchedulingTerm(SchedulingTerm):
    _kind = "TargetTimeSchedulingTerm"
    __slots__ = ()

    def set_next_target_time(self, target_timestamp):
        _jkompute.term(self._h, "set_next_target_time", int(target_timestamp))


class Timestamp(collections.namedtuple("Timestamp", ["acqtime", "pubtime"])):
    """A message's (acqtime, pubtime) in nanoseconds; jkompute messages carry one timestamp, so names are ignored."""

    @staticmethod
    def get_from_entity(message, name=None):
        t = _jkompute.timestamp(message)
        return None if t is None else Timestamp(t[0], t[1])

    @staticmethod
    def add_to_entity(message, acqtime, pubtime, name=None):
        _jkompute.set_timestamp(message, int(acqtime), int(pubtime))
        return Timestamp(acqtime, pubtime)


class MemoryStorageType(enum.Enum):
    kHost = "host"
    kDevice = "device"
    kSystem = "system"


class PrimitiveType(enum.Enum):
    kCustom = "custom"
    kInt8 = "int8"
    kUnsigned8 = "uint8"
    kInt16 = "int16"
    kUnsigned16 = "uint16"
    kInt32 = "int32"
    kUnsigned32 = "uint32"
    kInt64 = "int64"
    kUnsigned64 = "uint64"
    kFloat16 = "float16"
    kFloat32 = "float32"
    kFloat64 = "float64"
    kComplex64 = "complex64"
    kComplex128 = "complex128"
    kBool = "bool"


# member by label: Enum's own lookup by value costs about 1 us, a dict's a tenth of that (a per-frame path)
_PRIMITIVE = {m.value: m for m in PrimitiveType}
_STORAGE = {m.value: m for m in MemoryStorageType}

# struct-module formats for memoryview.cast, numpy's typestr for __array_interface__, DLPack (code, bits)
_FORMAT = {"int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i", "uint32": "I", "int64": "q",
           "uint64": "Q", "float16": "e", "float32": "f", "float64": "d", "bool": "?"}
_TYPESTR = {"int8": "|i1", "uint8": "|u1", "int16": "<i2", "uint16": "<u2", "int32": "<i4", "uint32": "<u4",
            "int64": "<i8", "uint64": "<u8", "float16": "<f2", "float32": "<f4", "float64": "<f8", "bool": "|b1",
            "complex64": "<c8", "complex128": "<c16"}
_FROM_TYPESTR = {v[1:]: k for k, v in _TYPESTR.items()}
_ITEMSIZE = {"int8": 1, "uint8": 1, "bool": 1, "int16": 2, "uint16": 2, "float16": 2, "int32": 4, "uint32": 4,
             "float32": 4, "int64": 8, "uint64": 8, "float64": 8, "complex64": 8, "complex128": 16}


class Shape:
    __slots__ = ("_dims",)

    def __init__(self, dims=()):
        self._dims = tuple(int(d) for d in dims)

    def rank(self):
        return len(self._dims)

    def size(self):
        n = 1
        for d in self._dims:
            n *= d
        return n

    def dimension(self, index):
        return self._dims[index]

    def __iter__(self):
        return iter(self._dims)

    def __len__(self):
        return len(self._dims)

    def __eq__(self, other):
        try:
            return list(self) == list(other)
        except TypeError:
            return False

    def __repr__(self):
        return "Shape(%s)" % list(self._dims)


_new = object.__new__


def _shape(dims):
    """A Shape over a tuple of ints from a tensor description, without converting each dimension again."""
    s = _new(Shape)
    s._dims = dims
    return s


class TensorDescription:
    def __init__(self, name, storage_type, shape, element_type, bytes_per_element=None, strides=None):
        self.name = name
        self.storage_type = storage_type
        self.shape = shape if isinstance(shape, Shape) else Shape(shape)
        self.element_type = element_type
        self.bytes_per_element = bytes_per_element
        self.strides = strides


class Tensor:
    """A tensor of a message. Host tensors are numpy arrays without a copy (np.asarray(tensor), np.from_dlpack)
    and give memoryview(); the Tensor keeps its message alive, so an array made from it stays valid as long as it
    is referenced. Device tensors give to_host(), a host copy.

    Its handle names the tensor by its message and place there: the message, kept by _msg, keeps the tensor, so a
    Tensor has nothing to give back when it dies (no finalizer: one call into the graph less per tensor and frame).
    Only a tensor of no message (to_host's copy) holds a handle of its own (_HeldTensor)."""

    __slots__ = ("_ctx", "_h", "_msg", "_name", "_info", "_array", "_added")

    def __init__(self, context=None, handle=0, message=None, name=None, array=None):
        self._ctx = context
        self._h = handle
        self._msg = message
        self._name = name
        self._info = None
        self._array = array
        self._added = False

    # ---- finding and adding --------------------------------------------------------------------------------

    @staticmethod
    def get_from_entity(message, name=None):
        """The first tensor named so (or the first tensor at all without a name), or None."""
        # one call gives the handle and the description (shape, type, pointer): the per-frame path of a codelet
        found = _tensor_with_info(message, "" if name is None else name)
        if found is None:
            return None
        t = _new(Tensor)
        t._ctx = message._ctx
        t._h, t._info = found
        t._msg = message
        t._name = name
        t._array = None
        t._added = False
        return t

    @staticmethod
    def find_all_from_entity(message):
        return [Tensor(message._ctx, h, message) for h in _jkompute.tensors(message)]

    @staticmethod
    def add_to_entity(message, tensor_or_name, name=None):
        """add_to_entity(msg, name) gives an empty tensor to reshape(); add_to_entity(msg, Tensor.as_tensor(array),
        name) adds an array's memory to the message without a copy (the message keeps the array alive)."""
        if isinstance(tensor_or_name, Tensor):
            t = tensor_or_name
            if t._array is None:
                raise ValueError("a tensor of another message cannot be added to this one (its memory goes back to "
                                 "the pool with that message); publish the received message itself, or add "
                                 "Tensor.as_tensor(np.asarray(tensor).copy())")
            return Tensor._add_array(message, t._array, name or "")
        t = _new(Tensor)
        t._ctx = message._ctx
        t._h = 0
        t._msg = message
        t._name = tensor_or_name
        t._info = None
        t._array = None
        t._added = True  # this codelet's own tensor: reshape may reallocate it
        return t

    @staticmethod
    def _add_array(message, array, name):
        if not hasattr(array, "__array_interface__"):
            if hasattr(array, "__cuda_array_interface__") or hasattr(array, "__dlpack__"):
                return Tensor._add_device_array(message, array, name)
            raise TypeError("%s has neither __array_interface__ nor __cuda_array_interface__" % type(array).__name__)
        ai = array.__array_interface__
        typestr = ai["typestr"]
        dtype = _FROM_TYPESTR.get(typestr[1:])
        if dtype is None or (typestr[0] == ">" and _ITEMSIZE[dtype] > 1):
            raise ValueError("array element type %s has no tensor type" % typestr)
        shape = [int(d) for d in ai["shape"]]
        item = _ITEMSIZE[dtype]
        strides = ai.get("strides")
        if strides is None:
            strides, step = [], item
            for d in reversed(shape):
                strides.insert(0, step)
                step *= max(d, 1)
        nbytes = item
        for d, s in zip(shape, strides):
            if d == 0:
                nbytes = 0
                break
            nbytes += (d - 1) * abs(s)
        if any(s < 0 for s in strides):
            raise ValueError("arrays with negative strides cannot be tensors; use np.ascontiguousarray")
        address = ai["data"][0]
        h = _jkompute.wrap_array(message, name, address, nbytes, dtype, ",".join(map(str, shape)),
                                 ",".join(map(str, strides)), array)
        return Tensor(message._ctx, h, message, name)

    @staticmethod
    def _add_device_array(message, array, name):
        """A CUDA array (CuPy, PyTorch) through DLPack: the message's tensor owns the DLManagedTensor and calls its
        producer's deleter when released, so the array's memory lives as long as the message."""
        cai = getattr(array, "__cuda_array_interface__", None)
        if cai is not None and cai.get("strides") is not None:
            item = _ITEMSIZE.get(_FROM_TYPESTR.get(cai["typestr"][1:], ""), 0)
            step, dense = item, True
            for d, st in zip(reversed(cai["shape"]), reversed(cai["strides"])):
                if d > 1 and st != step:
                    dense = False
                step *= d
            if not dense:
                raise ValueError("device arrays must be C-contiguous to become tensors (cupy.ascontiguousarray)")
        from gxf import _dlpack
        capsule = array.__dlpack__()
        managed = _dlpack.take(capsule)
        h = _jkompute.wrap_dlpack(message, name, managed)
        _dlpack.mark_used(capsule)
        return Tensor(message._ctx, h, message, name)

    @staticmethod
    def as_tensor(array):
        """An array (anything with __array_interface__) as a tensor to add to a message, without a copy."""
        if not hasattr(array, "__array_interface__") and not hasattr(array, "__cuda_array_interface__"):
            raise TypeError("as_tensor needs an object with __array_interface__ (e.g. a numpy array)")
        return Tensor(array=array)

    @staticmethod
    def from_dlpack(array):
        """An array that speaks DLPack (numpy, CuPy, PyTorch) as a tensor to add to a message, without a copy."""
        if hasattr(array, "__array_interface__") or hasattr(array, "__cuda_array_interface__"):
            return Tensor(array=array)
        import numpy
        return Tensor(array=numpy.from_dlpack(array))

    @staticmethod
    def add_np_array_as_tensor_to_entity(message, name, array, allocator):
        """GXF's older way from numpy to a message: a host tensor named so, allocated from the allocator with the
        array's shape and type, holding a copy of the array's values (unlike as_tensor, which wraps without a
        copy). Returns the new tensor."""
        import numpy as np
        src = np.ascontiguousarray(array)
        dtype = str(src.dtype)
        if dtype not in _ITEMSIZE:
            raise ValueError("array element type %s has no tensor type" % dtype)
        t = Tensor.add_to_entity(message, name)
        t.reshape_custom(Shape(src.shape), PrimitiveType(dtype), src.itemsize, None, MemoryStorageType.kHost,
                         allocator)
        np.asarray(t)[...] = src
        return t

    # ---- allocation ----------------------------------------------------------------------------------------

    def reshape(self, description, allocator):
        return self.reshape_custom(description.shape, description.element_type, description.bytes_per_element,
                                   description.strides, description.storage_type, allocator)

    def reshape_custom(self, shape, element_type, bytes_per_element, strides, storage_type, allocator):
        """Allocates dense memory of the shape and type from the allocator (bytes_per_element and strides follow
        from the type; jkompute tensors allocated here are always dense). On an allocated tensor of this message,
        as in GXF, the new memory replaces the old, which goes back to its allocator."""
        if self._msg is None:
            raise ValueError("only a tensor from Tensor.add_to_entity(msg, name) can be allocated")
        previous = self._h
        if previous and not self._added:
            raise ValueError("tensor '%s' of a received message cannot be reallocated (other receivers may share "
                             "it); add a tensor to a new message" % (self._name or ""))
        # labels and dimensions read here, not by helpers: a frame each on a path taken every frame. _value_ is
        # the member's own attribute (.value is a property, a call per read); a Shape's tuple is taken as it is
        label = element_type._value_ if type(element_type) is PrimitiveType else PrimitiveType(element_type).value
        storage = (storage_type._value_ if type(storage_type) is MemoryStorageType
                   else MemoryStorageType(storage_type).value)
        dims = shape._dims if type(shape) is Shape else tuple(int(d) for d in shape)
        try:
            h, self._info = _add_tensor(self._msg, self._name or "", allocator._h, label, storage, previous, *dims)
        except _java_error() as e:
            # e.g. an exhausted pool or a block too small: reported at the user's reshape line
            raise RuntimeError(e.args[0]) from None
        self._h = h  # a reshaped tensor keeps its place in the message, and so its handle
        return self

    # ---- description ---------------------------------------------------------------------------------------

    def _i(self):
        info = self._info
        if info is None:
            if not self._h:
                if self._array is not None:
                    raise ValueError("tensor from as_tensor/from_dlpack: add it to a message first")
                raise ValueError("tensor '%s' has no memory yet; call reshape() first" % self._name)
            info = self._info = _jkompute.tensor_info(self._h)
        return info

    # shape, element_type and storage_type are read per frame: the description as `self._info or self._i()` and
    # the Shape made in place save a call each (an empty description is never a valid one, so `or` is safe)

    def shape(self):
        s = _new(Shape)
        s._dims = (self._info or self._i())[3]
        return s

    def rank(self):
        return len(self._i()[3])

    def element_type(self):
        return _PRIMITIVE[(self._info or self._i())[2]]

    def storage_type(self):
        return _STORAGE[(self._info or self._i())[5]]

    def bytes_per_element(self):
        return _ITEMSIZE[self._i()[2]]

    def strides(self):
        return list(self._i()[4])

    def size(self):
        """Bytes of payload."""
        return self.shape().size() * self.bytes_per_element()

    def is_contiguous(self):
        info = self._i()
        step = _ITEMSIZE[info[2]]
        for d, s in zip(reversed(info[3]), reversed(info[4])):
            if d > 1 and s != step:
                return False
            step *= d
        return True

    def get_tensor_description(self):
        info = self._i()
        return TensorDescription(self._name or "", MemoryStorageType(info[5]), _shape(info[3]),
                                 PrimitiveType(info[2]), _ITEMSIZE[info[2]], list(info[4]))

    def name(self):
        return self._name or ""

    # ---- data ----------------------------------------------------------------------------------------------

    def _host(self):
        info = self._i()
        if info[5] == "device":
            raise ValueError("tensor is in device memory; call to_host() for a host copy"
                             + (" or use __cuda_array_interface__ / __dlpack__ (CuPy, PyTorch)"
                                if info[6] == "cuda" else ""))
        return info

    def _cuda(self):
        info = self._i()
        if info[6] != "cuda":
            raise ValueError("tensor is not in CUDA memory (%s)" % info[6])
        return info

    def to_host(self):
        """This tensor if it is on the host, else a host copy of the device tensor."""
        if self._i()[5] != "device":
            return self
        return _HeldTensor(self._ctx, _jkompute.to_host(self._h), self._msg, self._name)

    def memoryview(self):
        """A writable memoryview of the host memory, typed and shaped like the tensor (a flat byte view when the
        strides are not dense). Valid while this Tensor (and so its message) is referenced."""
        info = self._host()
        view = memoryview(_Memory(self, info[0], info[1])).cast("B")
        dtype = info[2]
        if not self.is_contiguous() or dtype not in _FORMAT:
            return view
        dims = list(info[3])
        view = view[:self.size()]
        return view.cast(_FORMAT[dtype], dims) if dims else view.cast(_FORMAT[dtype])

    def copy_from_host(self, array):
        """Copies a host array (numpy, same element count and type, C order) into this tensor; the way to fill a
        device tensor, whose memory is not mapped into the process (jkompute's addition to GXF's API)."""
        import numpy as np
        info = self._i()
        src = np.ascontiguousarray(array, dtype=_TYPESTR[info[2]])
        if src.size * src.itemsize != self.size():
            raise ValueError("array of %d bytes for a tensor of %d" % (src.size * src.itemsize, self.size()))
        _jkompute.upload(self._h, src.__array_interface__["data"][0], src.nbytes)

    def tobytes(self):
        return bytes(self.to_host().memoryview().cast("B"))

    def get_tensor_info(self):
        """As GXF's binding: (data pointer as a PyCapsule without a name, byte size, numpy dtype, rank, dims, byte
        strides), for host and CUDA tensors. The pointer is ctypes.pythonapi.PyCapsule_GetPointer(capsule, None)
        (GXF's VerifyEqual.py builds a CuPy array from it); the dtype is the element type's label where numpy is
        not installed."""
        info = self._i()
        if info[6] == "vulkan":
            raise ValueError("Vulkan device tensors are not mapped into the process; call to_host()")
        return (_pointer_capsule(info[0]), self.size(), _dtype(info[2]), len(info[3]), list(info[3]),
                list(info[4]))

    @property
    def __array_interface__(self):
        info = self._host()
        return {"version": 3, "data": (info[0], False), "typestr": _TYPESTR[info[2]], "shape": tuple(info[3]),
                "strides": tuple(info[4])}

    @property
    def __cuda_array_interface__(self):
        """CUDA memory as CuPy / PyTorch / Numba take it, no copy; 'stream' is the stream the tensor's producer
        queued its work on (the consumer waits for it)."""
        info = self._cuda()
        cai = {"version": 3, "data": (info[0], False), "typestr": _TYPESTR[info[2]], "shape": tuple(info[3]),
               "strides": tuple(info[4])}
        if info[8]:
            cai["stream"] = info[8]
        return cai

    def __dlpack_device__(self):
        info = self._i()
        if info[6] == "cuda":
            return (2, info[7])  # kDLCUDA
        if info[6] == "vulkan":
            raise ValueError("Vulkan device tensors have no DLPack device; call to_host()")
        return (1, 0)  # kDLCPU

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule over the tensor's memory, no copy (numpy / CuPy / torch .from_dlpack). For CUDA
        memory the producer's stream is synchronized first, so any consumer stream sees finished data."""
        from gxf import _dlpack
        info = self._i()
        if info[6] == "cuda":
            if info[8]:
                _jkompute.cuda_synchronize(self._h)
            return _dlpack.capsule(self, info[0], info[2], info[3], info[4], _dlpack.KDLCUDA, info[7])
        info = self._host()
        return _dlpack.capsule(self, info[0], info[2], info[3], info[4])

    def __repr__(self):
        if not self._h:
            return "Tensor(%s, unallocated)" % self._name
        info = self._i()
        return "Tensor(%s, %s, %s)" % (list(info[3]), info[2], info[5])


class _HeldTensor(Tensor):
    """A tensor of no message (a host copy of a device tensor), whose handle is its own: given back when it dies."""
    __slots__ = ()

    # gives the handle in _h back with no Python frame
    __del__ = _jkompute.handle_finalizer


@functools.lru_cache(maxsize=64)
def _buffer_type(nbytes):
    import ctypes
    # a subclass so that instances can hold a reference keeping the tensor (and its message) alive
    return type("TensorMemory", (ctypes.c_ubyte * nbytes,), {})


def _Memory(owner, address, nbytes):
    raw = _buffer_type(nbytes).from_address(address)
    raw._owner = owner
    return raw


_new_capsule = None


def _pointer_capsule(address):
    """A PyCapsule named NULL over address, as pybind11 casts a void*."""
    global _new_capsule
    if _new_capsule is None:
        import ctypes
        # a prototype of our own: ctypes.pythonapi's shared attributes are the codelets' to configure
        _new_capsule = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
            ("PyCapsule_New", ctypes.pythonapi))
    return _new_capsule(address, None, None)


def _dtype(label):
    try:
        import numpy
    except ImportError:
        return label
    return numpy.dtype(label)
