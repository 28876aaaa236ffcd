"""DLPack capsules over tensor memory (no copy), built with ctypes: what Tensor.__dlpack__ returns.

The capsule's DLManagedTensor holds the Tensor (and so its message) alive until the consumer (numpy, CuPy, PyTorch)
calls the deleter; a capsule that is never consumed gives them back when it is destroyed."""
import ctypes

# DLPack's data type codes and device types
_CODES = {"int8": (0, 8), "int16": (0, 16), "int32": (0, 32), "int64": (0, 64), "uint8": (1, 8), "uint16": (1, 16),
          "uint32": (1, 32), "uint64": (1, 64), "float16": (2, 16), "float32": (2, 32), "float64": (2, 64),
          "complex64": (5, 64), "complex128": (5, 128), "bool": (6, 8)}
KDLCPU = 1
KDLCUDA = 2


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int), ("dtype", _DataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Managed))
_Managed._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

# live capsules: address of the DLManagedTensor -> what must stay alive until the deleter runs
_LIVE = {}


@_DELETER
def _deleter(managed):
    _LIVE.pop(ctypes.addressof(managed.contents), None)


_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_pyapi = ctypes.pythonapi
# prototypes of our own, not ctypes.pythonapi's shared attributes: codelets set those (GXF's VerifyEqual.py sets
# PyCapsule_GetPointer's argtypes to py_object), which must not change how these are called
_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR)(
    ("PyCapsule_New", _pyapi))
_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _pyapi))
_pointer_of = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _pyapi))


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    # still named "dltensor": never consumed, so the producer deletes (DLPack's rule)
    if _is_valid(capsule, b"dltensor"):
        address = _pointer_of(capsule, b"dltensor")
        _LIVE.pop(address, None)


def capsule(owner, address, dtype, shape, strides, device_type=KDLCPU, device_id=0):
    """A "dltensor" capsule over address; strides are in bytes here and in elements in DLPack."""
    code, bits = _CODES[dtype]
    item = bits // 8
    ndim = len(shape)
    shape_arr = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_arr = (ctypes.c_int64 * max(ndim, 1))(*[s // item for s in strides])
    m = _Managed()
    m.dl_tensor.data = address
    m.dl_tensor.device = _Device(device_type, device_id)
    m.dl_tensor.ndim = ndim
    m.dl_tensor.dtype = _DataType(code, bits, 1)
    m.dl_tensor.shape = shape_arr
    m.dl_tensor.strides = strides_arr
    m.dl_tensor.byte_offset = 0
    m.manager_ctx = None
    m.deleter = _deleter
    _LIVE[ctypes.addressof(m)] = (m, shape_arr, strides_arr, owner)
    return _new(ctypes.addressof(m), b"dltensor", _capsule_destructor)


# the same C functions taking the capsule as an object (the destructor above gets a bare address)
_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _pyapi))
_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_SetName", _pyapi))
_USED = ctypes.c_char_p(b"used_dltensor")  # the name must outlive the capsule


def take(capsule):
    """The DLManagedTensor* of an unconsumed "dltensor" capsule (a consumer's first step)."""
    address = _get_pointer(capsule, b"dltensor")
    if not address:
        raise ValueError("not an unconsumed DLPack capsule")
    return address


def mark_used(capsule):
    """Renames the capsule so its destructor leaves the tensor to the new owner (DLPack's rule)."""
    _set_name(capsule, _USED)
