"""CodeletAdapter: the base class of Python codelets, and how PyCodeletV0 loads them."""
import importlib
import os
import sys

from gxf.std import Allocator, Clock, Receiver, Transmitter
from gxf.cuda import CudaStreamPool


def _to_py(value):
    """Java maps and lists (from the YAML of codelet_params) as plain dicts and lists."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if hasattr(value, "keys"):
        return {str(k): _to_py(value[k]) for k in value.keys()}
    return [_to_py(v) for v in value]


class CodeletAdapter:
    """Override start(), tick() and stop(). PyCodeletV0 creates the instance with no arguments, then calls
    set_bridge(bridge) and start()."""

    def __init__(self):
        self.txs = []
        self.rxs = []
        self.sts = []

    def set_bridge(self, bridge):
        self._bridge = bridge
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
        return self._b().context()

    def eid(self):
        return self._b().eid()

    def cid(self):
        return self._b().cid()

    def name(self):
        return self._b().name()

    def get_execution_timestamp(self):
        """Nanoseconds on the graph clock of the last start/tick/stop."""
        return self._b().executionTimestamp()

    def get_execution_time(self):
        """get_execution_timestamp() in seconds."""
        return self._b().executionTime()

    def get_delta_time(self):
        """Seconds between this execution and the previous one."""
        return self._b().deltaTime()

    def get_execution_count(self):
        return self._b().executionCount()

    def is_first_tick(self):
        return self._b().isFirstTick()

    def get_params(self):
        """codelet_params as YAML gives it (a dict for a mapping); {} when the parameter is not set."""
        params = _to_py(self._b().params())
        return {} if params is None else params

    def get_receivers(self):
        ctx = self.context()
        return [Receiver(ctx, r) for r in self._b().receivers()]

    def get_transmitters(self):
        ctx = self.context()
        return [Transmitter(ctx, t) for t in self._b().transmitters()]

    def get_allocators(self):
        ctx = self.context()
        return [Allocator(ctx, a) for a in self._b().allocators()]

    def get_cuda_stream_pools(self):
        ctx = self.context()
        return [CudaStreamPool(ctx, p) for p in self._b().streamPools()]

    def get_clock(self, name=None):
        """The clock named (as a handle) or, without a name, the codelet's clock parameter or the scheduler's."""
        if name is not None:
            return Clock.get(self.context(), self.cid(), name)
        return Clock(self.context(), self._b().clock())

    def start(self):
        pass

    def tick(self):
        pass

    def stop(self):
        pass


def _load_class(path, class_name):
    """As GXF: the module is the file name up to its first '.', imported with the file's folder on sys.path."""
    if path == "None":
        module = sys.modules["__main__"]
        where = "__main__"
    else:
        directory, filename = os.path.split(path)
        if directory not in sys.path:
            sys.path.append(directory)
        module = importlib.import_module(filename.split(".")[0])
        where = path
    cls = getattr(module, class_name, None)
    if cls is None:
        raise AttributeError("%s defines no class '%s'" % (where, class_name))
    if not (isinstance(cls, type) and issubclass(cls, CodeletAdapter)):
        raise TypeError("'%s' in %s is not a subclass of gxf.python_codelet.CodeletAdapter" % (class_name, where))
    return cls
