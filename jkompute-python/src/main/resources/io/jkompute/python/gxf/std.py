"""GXF's standard extension from Python: queues, clocks, allocators, tensors and timestamps."""
import collections
import enum
import functools

import polyglot

from gxf.core import Entity


class Component:
    """A graph component by handle: Component.get(context, cid, "name" or "entity/name")."""
    _kind = "Component"

    def __init__(self, context, handle):
        self._ctx = context
        self._j = handle

    @classmethod
    def get(cls, context, cid, name):
        try:
            handle = context.lookup(cid, name, cls._kind)
        except polyglot.ForeignException as e:
            # raised here, the error names the user's line that asked for the handle
            raise ValueError(_java_message(e)) from None
        return cls(context, handle)

    def name(self):
        return self._ctx.path(self._j)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self.name())


def _java_message(e):
    """A Java exception's message without its class name ("java.lang.IllegalArgumentException: ...")."""
    text = str(e)
    head, sep, rest = text.partition(": ")
    return rest if sep and "." in head and " " not in head else text


class _Queue(Component):
    def size(self):
        return self._ctx.queueSizes(self._j)[0]

    def back_size(self):
        return self._ctx.queueSizes(self._j)[1]

    def capacity(self):
        return self._ctx.queueSizes(self._j)[2]


class Receiver(_Queue):
    _kind = "Receiver"

    def receive(self):
        """The oldest message, or None when there is none (GXF returns a null entity; None is falsy)."""
        m = self._ctx.receive(self._j)
        return None if m is None else Entity(self._ctx, m)

    def sync(self):
        self._ctx.sync(self._j)


class Transmitter(_Queue):
    _kind = "Transmitter"

    def publish(self, message, acq_timestamp=0):
        """Publishes with a timestamp (acqtime as given, pubtime the graph clock's now). Failures raise."""
        self._ctx.publish(self._j, message._j, int(acq_timestamp))
        return "GXF_SUCCESS"


class Clock(Component):
    _kind = "Clock"

    def time(self):
        return self._ctx.clockTime(self._j)

    def timestamp(self):
        return self._ctx.clockTimestamp(self._j)


class Allocator(Component):
    _kind = "Allocator"


class Timestamp(collections.namedtuple("Timestamp", ["acqtime", "pubtime"])):
    """A message's (acqtime, pubtime) in nanoseconds; jkompute messages carry one timestamp, so names are ignored."""

    @staticmethod
    def get_from_entity(message, name=None):
        t = message._ctx.timestamp(message._j)
        return None if t is None else Timestamp(t[0], t[1])

    @staticmethod
    def add_to_entity(message, acqtime, pubtime, name=None):
        message._ctx.setTimestamp(message._j, int(acqtime), int(pubtime))
        return Timestamp(acqtime, pubtime)


class MemoryStorageType(enum.Enum):
    kHost = "host"
    kDevice = "device"
    kSystem = "system"


class PrimitiveType(enum.Enum):
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
    kBool = "bool"


# struct-module formats for memoryview.cast, and numpy's typestr for __array_interface__
_FORMAT = {"int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i", "uint32": "I", "int64": "q",
           "uint64": "Q", "float16": "e", "float32": "f", "float64": "d", "bool": "?"}
_TYPESTR = {"int8": "|i1", "uint8": "|u1", "int16": "<i2", "uint16": "<u2", "int32": "<i4", "uint32": "<u4",
            "int64": "<i8", "uint64": "<u8", "float16": "<f2", "float32": "<f4", "float64": "<f8", "bool": "|b1"}


class Shape:
    def __init__(self, dims=()):
        self._dims = [int(d) for d in dims]

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
        return list(self) == list(other)

    def __repr__(self):
        return "Shape(%s)" % self._dims


class TensorDescription:
    def __init__(self, name, storage_type, shape, element_type, bytes_per_element=None, strides=None):
        self.name = name
        self.storage_type = storage_type
        self.shape = shape if isinstance(shape, Shape) else Shape(shape)
        self.element_type = element_type
        self.bytes_per_element = bytes_per_element
        self.strides = strides


@functools.lru_cache(maxsize=64)
def _buffer_type(nbytes):
    # imported on first use: ctypes costs a quarter second at context start on an interpreter-only JVM
    import ctypes
    # a subclass so that instances can hold a reference keeping the Java memory owner alive
    return type("TensorMemory", (ctypes.c_ubyte * nbytes,), {})


class Tensor:
    """A tensor of a message. Host tensors give memoryview() over their memory (no copy; writes go to the tensor)
    and __array_interface__ (numpy, when installed); device tensors give to_host(), a host copy."""

    def __init__(self, context, handle, message=None, name=None):
        self._ctx = context
        self._j = handle
        self._msg = message
        self._name = name

    @staticmethod
    def get_from_entity(message, name=None):
        """The first tensor named so (or the first tensor at all without a name), or None."""
        ctx = message._ctx
        if name is None:
            ts = ctx.tensors(message._j)
            return Tensor(ctx, ts[0]) if len(ts) else None
        t = ctx.tensor(message._j, name)
        return None if t is None else Tensor(ctx, t)

    @staticmethod
    def find_all_from_entity(message):
        ctx = message._ctx
        return [Tensor(ctx, t) for t in ctx.tensors(message._j)]

    @staticmethod
    def add_to_entity(message, tensor_or_name, name=None):
        """add_to_entity(msg, name) gives an empty tensor to reshape(). Adding a tensor that another message owns is
        not supported (its memory returns to the pool with that message): forward the message itself instead."""
        if isinstance(tensor_or_name, Tensor):
            raise ValueError("a tensor of another message cannot be added to this one (its memory goes back to "
                             "the pool with that message); publish the received message itself, or reshape a new "
                             "tensor and copy through memoryview()")
        return Tensor(message._ctx, None, message, tensor_or_name)

    def reshape(self, description, allocator):
        return self.reshape_custom(description.shape, description.element_type, description.bytes_per_element,
                                   description.strides, description.storage_type, allocator)

    def reshape_custom(self, shape, element_type, bytes_per_element, strides, storage_type, allocator):
        """Allocates dense memory of the shape and type from the allocator (bytes_per_element and strides follow
        from the type; jkompute tensors allocated here are always dense)."""
        if self._msg is None:
            raise ValueError("only a tensor from Tensor.add_to_entity(msg, name) can be allocated")
        if self._j is not None:
            raise ValueError("tensor '%s' is already allocated" % self._name)
        dims = [int(d) for d in (shape if not isinstance(shape, Shape) else list(shape))]
        try:
            self._j = self._ctx.addTensor(self._msg._j, self._name, allocator._j, PrimitiveType(element_type).value,
                                          dims, MemoryStorageType(storage_type).value)
        except polyglot.ForeignException as e:
            # e.g. an exhausted pool or a block too small: reported at the user's reshape line
            raise RuntimeError(_java_message(e)) from None
        return self

    def _check(self):
        if self._j is None:
            raise ValueError("tensor '%s' has no memory yet; call reshape() first" % self._name)
        return self._j

    def shape(self):
        return Shape(list(self._ctx.shape(self._check())))

    def rank(self):
        return self.shape().rank()

    def element_type(self):
        return PrimitiveType(self._ctx.dataType(self._check()))

    def storage_type(self):
        return MemoryStorageType(self._ctx.storage(self._check()))

    def bytes_per_element(self):
        return _itemsize(self._ctx.dataType(self._check()))

    def strides(self):
        return list(self._ctx.strides(self._check()))

    def size(self):
        """Bytes of payload."""
        return self.shape().size() * self.bytes_per_element()

    def is_contiguous(self):
        dims, strides, step = list(self.shape()), self.strides(), self.bytes_per_element()
        for d, s in zip(reversed(dims), reversed(strides)):
            if d > 1 and s != step:
                return False
            step *= d
        return True

    def to_host(self):
        """This tensor if it is on the host, else a host copy of the device tensor."""
        j = self._check()
        if self._ctx.storage(j) != "device":
            return self
        return Tensor(self._ctx, self._ctx.toHost(j))

    def memoryview(self):
        """A writable memoryview of the host memory, typed and shaped like the tensor (a flat byte view when the
        strides are not dense). Valid while the message holding the tensor lives (the tick, or longer if kept)."""
        j = self._check()
        mem = self._host_memory()
        address, nbytes = int(mem[0]), int(mem[1])
        raw = _buffer_type(nbytes).from_address(address)
        raw._owner = j
        view = memoryview(raw).cast("B")
        dtype = self._ctx.dataType(j)
        if not self.is_contiguous() or dtype not in _FORMAT:
            return view
        dims = list(self.shape())
        view = view[:self.size()]
        return view.cast(_FORMAT[dtype], dims) if dims else view.cast(_FORMAT[dtype])

    def _host_memory(self):
        j = self._check()
        if self._ctx.storage(j) == "device":
            raise ValueError("tensor is in device memory; call to_host() for a host copy")
        return self._ctx.hostMemory(j)

    def tobytes(self):
        return bytes(self.to_host().memoryview().cast("B"))

    def get_tensor_info(self):
        """(data address, byte size, element type label, rank, dims, byte strides) of a host tensor."""
        j = self._check()
        mem = self._host_memory()
        dims = list(self.shape())
        return (int(mem[0]), self.size(), self._ctx.dataType(j), len(dims), dims, self.strides())

    @property
    def __array_interface__(self):
        j = self._check()
        mem = self._host_memory()
        dtype = self._ctx.dataType(j)
        return {"version": 3, "data": (int(mem[0]), False), "typestr": _TYPESTR[dtype],
                "shape": tuple(self.shape()), "strides": tuple(self.strides())}

    def __repr__(self):
        if self._j is None:
            return "Tensor(%s, unallocated)" % self._name
        return "Tensor(%s, %s, %s)" % (list(self.shape()), self._ctx.dataType(self._j), self._ctx.storage(self._j))


def _itemsize(dtype):
    return {"int8": 1, "uint8": 1, "bool": 1, "int16": 2, "uint16": 2, "float16": 2, "int32": 4, "uint32": 4,
            "float32": 4, "int64": 8, "uint64": 8, "float64": 8}[dtype]
