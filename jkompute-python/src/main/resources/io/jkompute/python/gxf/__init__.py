"""GXF's Python codelet API for jkompute graphs (PyCodeletV0 in the user's own CPython, embedded in the JVM).

Modules: gxf.core (MessageEntity, Entity), gxf.std (Receiver, Transmitter, Clock, Allocator, Tensor, Timestamp,
scheduling terms, ...), gxf.cuda (CudaStreamPool, CudaStreamId) and gxf.python_codelet (CodeletAdapter, PyData).
"""
