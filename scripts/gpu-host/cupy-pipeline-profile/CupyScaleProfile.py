# CupyScale (apps/python/cuda) with each part of its tick timed (perf_counter_ns), printed at stop() as TICKPARTS
# lines; the first instance in a JVM also times two upcalls and the launch paths (launchbench.py, named by
# LAUNCHBENCH, and gxf.cuda.launch) on the pool's stream.
import os, time
import cupy
import numpy
import _jkompute

from gxf.core import MessageEntity
from gxf.cuda import CudaStreamId, CudaStreamPool, as_cupy, launch
from gxf.python_codelet import CodeletAdapter
from gxf.std import Allocator, MemoryStorageType, PrimitiveType, Receiver, Tensor, Timestamp, Transmitter

_SOURCE = r"""
extern "C" __global__ void scale(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaf(x[i], 2.0f, 1.0f);
}
"""
_BLOCK = 256
PARTS = ["receive", "get_from_entity", "element_type+shape", "MessageEntity", "add_to_entity", "reshape_custom", "shape.size",
         "launch", "CudaStreamId", "publish", "releases", "total"]
_DONE = [False]


class CupyScaleProfile(CodeletAdapter):
    def start(self):
        p = self.get_params()
        self.rx = Receiver.get(self.context(), self.cid(), p["receiver"])
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), p["allocator"])
        self.streams = CudaStreamPool.get(self.context(), self.cid(), p["stream_pool"])
        self.stream_cid, self.stream = self.streams.allocate_stream()
        self.cupy_stream = cupy.cuda.ExternalStream(self.stream.ptr)
        self.kernel = cupy.RawKernel(_SOURCE, "scale")
        self.kernel.compile()
        self.acc = [[] for _ in PARTS]
        if not _DONE[0]:
            _DONE[0] = True
            pc = time.perf_counter_ns
            h = self.rx._h
            qs = _jkompute.queue_sizes
            for _ in range(1000):
                qs(h)
            t0 = pc()
            for _ in range(20000):
                qs(h)
            print("UPCALL queue_sizes (returns a 3-list): %.3f us" % ((pc() - t0) / 20000 / 1e3), flush=True)
            nm = _jkompute.new_message
            rel = _jkompute.release
            t0 = pc()
            for _ in range(20000):
                rel(nm())
            print("UPCALL new_message + release: %.3f us" % ((pc() - t0) / 20000 / 1e3), flush=True)
            lb = os.environ.get("LAUNCHBENCH")
            if lb:
                import importlib.util
                spec = importlib.util.spec_from_file_location("launchbench", lb)
                m = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(m)
                print("launch paths inside the JVM, on the CudaStreamPool's stream:", flush=True)
                m.bench(self.stream.ptr, 20000, lambda s: print("JVM " + s, flush=True))
            x = cupy.arange(1024, dtype=cupy.float32)
            y = cupy.empty(1024, dtype=cupy.float32)
            n32 = numpy.int32(1024)
            for _ in range(1000):
                launch(self.kernel, (4,), (256,), (x, y, n32), self.stream)
            t0 = pc()
            for _ in range(20000):
                launch(self.kernel, (4,), (256,), (x, y, n32), self.stream)
            t1 = pc()
            self.cupy_stream.synchronize()
            assert (cupy.asnumpy(y) == 2 * numpy.arange(1024, dtype=numpy.float32) + 1).all()
            print("JVM LAUNCH gxf.cuda.launch on CuPy arrays (checked)      %7.3f us/launch" % ((t1 - t0) / 20000 / 1e3), flush=True)

    def tick(self):
        pc = time.perf_counter_ns
        a = self.acc
        t0 = pc()
        msg = self.rx.receive()
        t1 = pc()
        src = Tensor.get_from_entity(msg)
        t2 = pc()
        if src.element_type() != PrimitiveType.kFloat32:
            raise ValueError("CupyScale takes float32 tensors, got %s" % src.element_type())
        shape = src.shape()
        t3 = pc()
        out = MessageEntity(self.context())
        t4 = pc()
        dst = Tensor.add_to_entity(out, "scaled")
        t5 = pc()
        dst.reshape_custom(shape, PrimitiveType.kFloat32, 4, None, MemoryStorageType.kDevice, self.pool)
        t6 = pc()
        n = shape.size()
        t7 = pc()
        launch(self.kernel, ((n + _BLOCK - 1) // _BLOCK,), (_BLOCK,), (src, dst, numpy.int32(n)), self.stream)
        t8 = pc()
        CudaStreamId.add_to_entity(out, "stream").stream_cid = self.stream_cid
        t9 = pc()
        self.tx.publish(out)
        t10 = pc()
        del msg, src, out, dst
        t11 = pc()
        for i, v in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6, t8 - t7, t9 - t8,
                               t10 - t9, t11 - t10, t11 - t0)):
            a[i].append(v)

    def stop(self):
        self.cupy_stream.synchronize()
        n = len(self.acc[-1])
        if n < 1000:
            return
        lines = ["TICKPARTS over %d ticks (us): part mean p50 p90" % n]
        for name, v in zip(PARTS, self.acc):
            v = numpy.array(v[n // 10:]) / 1e3  # the first 10% as warm-up
            lines.append("TICKPARTS %-16s %7.3f %7.3f %7.3f" % (name, v.mean(), numpy.percentile(v, 50),
                                                                numpy.percentile(v, 90)))
        print("\n".join(lines), flush=True)
