"""CUDA stream pools as Python sees them: named handles to the graph components listed in cuda_stream_pools.

jkompute's CUDA streams are Java objects (jkompute-cuda); allocating or synchronising them from Python is not
offered, so a CudaStreamPool here only says which component it is."""


class CudaStreamPool:
    def __init__(self, context, handle):
        self._ctx = context
        self._j = handle

    @staticmethod
    def get(context, cid, name):
        return CudaStreamPool(context, context.lookup(cid, name, "Component"))

    def name(self):
        return self._ctx.path(self._j)

    def allocate_stream(self):
        raise NotImplementedError("CUDA streams cannot be allocated from Python codelets in jkompute; "
                                  "use a Java codelet (jkompute-cuda) for stream work")

    def __repr__(self):
        return "CudaStreamPool(%s)" % self.name()
