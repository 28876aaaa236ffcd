# CuPy launch paths timed on one stream: RawKernel.__call__ (with / without the stream context), Function.__call__,
# cupy.cuda.driver.launchKernel with a pre-packed argument buffer, and a ctypes cuLaunchKernel.
import ctypes, time, sys
import numpy, cupy

SRC = r'''extern "C" __global__ void scale(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = fmaf(x[i], 2.0f, 1.0f); }'''


def bench(stream_ptr=None, iters=20000, out=print):
    kernel = cupy.RawKernel(SRC, "scale")
    kernel.compile()
    n = 1024
    x = cupy.arange(n, dtype=cupy.float32)
    y = cupy.empty(n, dtype=cupy.float32)
    s = cupy.cuda.ExternalStream(stream_ptr) if stream_ptr else cupy.cuda.Stream(non_blocking=True)
    grid, block = ((n + 255) // 256,), (256,)
    f = kernel.kernel
    pc = time.perf_counter_ns
    res = {}

    def t(name, fn):
        for _ in range(500):
            fn()
        s.synchronize()
        t0 = pc()
        for _ in range(iters):
            fn()
        t1 = pc()
        s.synchronize()
        res[name] = (t1 - t0) / iters / 1e3
        out("LAUNCH %-44s %7.3f us/launch" % (name, res[name]))

    n32 = numpy.int32(n)

    def a():
        with s:
            kernel(grid, block, (x, y, n32))
    t("RawKernel() in 'with stream'", a)
    t("RawKernel() args built per call", lambda: _withcall(s, kernel, grid, block, x, y, n))
    t("'with stream' enter+exit alone", lambda: _with(s))
    t("Function(grid, block, args, 0, stream)", lambda: f(grid, block, (x, y, n32), 0, s))
    t("Function(..) int args", lambda: f(grid, block, (x.data.ptr, y.data.ptr, n32), 0, s))
    # pre-packed kernel params: void*[3] pointing at 2 pointers and an int
    vals = (ctypes.c_uint64 * 3)(x.data.ptr, y.data.ptr, n)
    params = (ctypes.c_void_p * 3)(ctypes.addressof(vals), ctypes.addressof(vals) + 8, ctypes.addressof(vals) + 16)
    pp = ctypes.addressof(params)
    drv = cupy.cuda.driver
    fp, sp = f.ptr, s.ptr
    t("driver.launchKernel pre-packed", lambda: drv.launchKernel(fp, 4, 1, 1, 256, 1, 1, 0, sp, pp, 0))

    def repack():
        vals[0] = x.data.ptr
        vals[1] = y.data.ptr
        vals[2] = n
        drv.launchKernel(fp, 4, 1, 1, 256, 1, 1, 0, sp, pp, 0)
    t("driver.launchKernel repacked per call", repack)
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        lk = cuda.cuLaunchKernel
        lk.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
        t("ctypes cuLaunchKernel pre-packed", lambda: lk(fp, 4, 1, 1, 256, 1, 1, 0, sp, pp, None))
    except Exception as e:
        out("LAUNCH ctypes failed: %r" % e)
    t("x.data.ptr + y.data.ptr (attribute reads)", lambda: (x.data.ptr, y.data.ptr))
    numpy.testing.assert_array_equal(cupy.asnumpy(y), 2 * numpy.arange(n, dtype=numpy.float32) + 1)
    out("LAUNCH results checked")
    return res


def _with(s):
    with s:
        pass


def _withcall(s, kernel, grid, block, x, y, n):
    with s:
        kernel(grid, block, (x, y, numpy.int32(n)))


if __name__ == "__main__":
    print(sys.version, "cupy", cupy.__version__, "numpy", numpy.__version__)
    bench()
