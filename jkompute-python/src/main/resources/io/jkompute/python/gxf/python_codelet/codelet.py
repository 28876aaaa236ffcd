"""CodeletAdapter: the base class of Python codelets, PyData, and how PyCodeletV0 loads them."""
import importlib
import json
import os
import sys

import _jkompute
from gxf.std import Allocator, Clock, Receiver, Transmitter, _Context
from gxf.cuda import CudaStreamPool

_bridge = _jkompute.bridge
# the bridge's properties, numbered as NativeModule's "bridge" function reads them
BRIDGE = {name: i for i, name in enumerate(
    ("context", "eid", "cid", "name", "execution_timestamp", "execution_time", "delta_time", "execution_count",
     "is_first_tick", "params", "clock", "receivers", "transmitters", "allocators", "stream_pools"))}


class _Bridge:
    """The Java side of one PyCodeletV0 (a handle); CodeletAdapter's getters ask it."""
    __slots__ = ("_h",)

    def __init__(self, handle):
        self._h = handle

    # gives the handle in _h back with no Python frame
    __del__ = _jkompute.handle_finalizer

    def get(self, what):
        return _bridge(self._h, BRIDGE[what])


class CodeletAdapter:
    """Override start(), tick() and stop(). PyCodeletV0 creates the instance with no arguments, then calls
    set_bridge(bridge) and start()."""

    def __init__(self):
        self.txs = []
        self.rxs = []
        self.sts = []

    def set_bridge(self, bridge):
        self._bridge = bridge
        self._context = _Context(bridge.get("context"))
        self._cid = bridge.get("cid")
        params = self.get_params()
        if isinstance(params, dict):
            for name in params.get("_txs") or []:
                setattr(self, name, Transmitter.get(self.context(), self.cid(), name))
            for name in params.get("_rxs") or []:
                setattr(self, name, Receiver.get(self.context(), self.cid(), name))

    def _b(self):
        try:
            return self._bridge
        except AttributeError:
            raise RuntimeError("%s is not attached to a PyCodeletV0 yet (set_bridge not called)"
                               % type(self).__name__) from None

    def context(self):
        # called in every tick that makes a message (MessageEntity(self.context())): one attribute read
        try:
            return self._context
        except AttributeError:
            self._b()
            raise

    def eid(self):
        return self._b().get("eid")

    def cid(self):
        try:
            return self._cid
        except AttributeError:
            self._b()
            raise

    def name(self):
        return self._b().get("name")

    def get_execution_timestamp(self):
        """Nanoseconds on the graph clock of the last start/tick/stop."""
        return self._b().get("execution_timestamp")

    def get_execution_time(self):
        """get_execution_timestamp() in seconds."""
        return self._b().get("execution_time")

    def get_delta_time(self):
        """Seconds between this execution and the previous one."""
        return self._b().get("delta_time")

    def get_execution_count(self):
        return self._b().get("execution_count")

    def is_first_tick(self):
        return self._b().get("is_first_tick")

    def get_params(self):
        """codelet_params as YAML gives it (a dict for a mapping); {} when the parameter is not set."""
        params = json.loads(self._b().get("params"))
        return {} if params is None else params

    def get_receivers(self):
        ctx = self.context()
        return [Receiver(ctx, h) for h in self._b().get("receivers")]

    def get_transmitters(self):
        ctx = self.context()
        return [Transmitter(ctx, h) for h in self._b().get("transmitters")]

    def get_allocators(self):
        ctx = self.context()
        return [Allocator(ctx, h) for h in self._b().get("allocators")]

    def get_cuda_stream_pools(self):
        ctx = self.context()
        return [CudaStreamPool(ctx, h) for h in self._b().get("stream_pools")]

    def get_clock(self, name=None):
        """The clock named (as a handle) or, without a name, the codelet's clock parameter or the scheduler's."""
        if name is not None:
            return Clock.get(self.context(), self.cid(), name)
        return Clock(self.context(), self._b().get("clock"))

    def start(self):
        pass

    def tick(self):
        pass

    def stop(self):
        pass


class PyData:
    """Any Python object carried in a message (GXF's PyData): add_to_entity(msg, obj, name), get_from_entity(msg,
    name). The message holds a reference to the object until the message is released."""

    @staticmethod
    def add_to_entity(entity, data, name=None):
        _jkompute.add_object(entity, name or "", data)

    @staticmethod
    def get_from_entity(entity, name=None):
        found, data = _jkompute.get_object(entity, name or "")
        if not found:
            raise ValueError("error getting pydata called %s" % name)
        return data


def _load_class(path, class_name):
    """As GXF: the module is the file name up to its first '.', imported with the file's folder on sys.path. A second
    file with the same module name (another app's VerifyEqual.py in the same process) is loaded from its own path
    instead of getting the first one's module."""
    if path == "None":
        module = sys.modules["__main__"]
        where = "__main__"
    else:
        directory, filename = os.path.split(path)
        if directory not in sys.path:
            sys.path.append(directory)
        name = filename.split(".")[0]
        module = sys.modules.get(name)
        if module is not None and not _same_file(getattr(module, "__file__", None), path):
            module = _load_private(name, path)
        else:
            module = importlib.import_module(name)
            if not _same_file(getattr(module, "__file__", None), path):
                module = _load_private(name, path)
        where = path
    cls = getattr(module, class_name, None)
    if cls is None:
        raise AttributeError("%s defines no class '%s'" % (where, class_name))
    if not (isinstance(cls, type) and issubclass(cls, CodeletAdapter)):
        raise TypeError("'%s' in %s is not a subclass of gxf.python_codelet.CodeletAdapter" % (class_name, where))
    return cls


def _same_file(a, b):
    try:
        return a is not None and os.path.samefile(a, b)
    except OSError:
        return False


def _load_private(name, path):
    import importlib.util
    key = "%s@%s" % (name, os.path.realpath(path))
    module = sys.modules.get(key)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[key]
            raise
    return module
