"""GXF's Python codelet API for jkompute graphs (PyCodeletV0 under GraalPy).

Modules: gxf.core (MessageEntity, Entity), gxf.std (Receiver, Transmitter, Clock, Allocator, Tensor, Timestamp, ...),
gxf.cuda (CudaStreamPool handles) and gxf.python_codelet (CodeletAdapter).
"""
