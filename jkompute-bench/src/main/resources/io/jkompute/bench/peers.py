"""Peers of `jkompute bench`: the same work as a suite, done by CuPy and by PyTorch on the same GPU.

Run by the bench as `python3 peers.py SUITE [--quick] [--seed N]`; prints one JSON object on stdout:
  {"peers": {"CuPy": "14.2.0", ...}, "missing": {"PyTorch": "why"}, "figures": [...], "checks": [...], "notes": [...]}
A figure is {"metric", "impl", "bytes", "unit": "µs", "samples": [...]}; a check is {"name", "failure": null or text}.
A peer that does not import, or sees no GPU, is listed under "missing" and runs nothing.
"""
import json
import sys
import time

TINY = r'''extern "C" __global__ void tiny(unsigned int* o) { o[threadIdx.x] += 1u; }'''
ADD = r'''extern "C" __global__ void add(const unsigned int* a, const unsigned int* b, unsigned int* o, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] += a[i] + b[i];
}'''

out = {"peers": {}, "missing": {}, "figures": [], "checks": [], "notes": []}


def figure(metric, impl, bytes_, samples_ns):
    out["figures"].append({"metric": metric, "impl": impl, "bytes": bytes_, "unit": "µs",
                           "samples": [s / 1e3 for s in samples_ns]})


def check(name, failure):
    out["checks"].append({"name": name, "failure": failure})
    return failure is None


def wall(body, warm, reps):
    for _ in range(warm):
        body()
    t = []
    clock = time.perf_counter_ns
    for _ in range(reps):
        t0 = clock()
        body()
        t.append(clock() - t0)
    return t


def counters(got, init, added):
    for i, (g, w) in enumerate(zip(got, init)):
        want = (int(w) + added) & 0xFFFFFFFF
        if int(g) & 0xFFFFFFFF != want:
            return "counter %d is %d, expected %d after %d launches" % (i, int(g) & 0xFFFFFFFF, want, added)
    return None


def uniform(got, want, what):
    bad = [i for i, g in enumerate(got) if int(g) & 0xFFFFFFFF != want]
    return None if not bad else "%s: element %d is %d, expected %d" % (what, bad[0], int(got[bad[0]]), want)


def load_cupy():
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
        out["peers"]["CuPy"] = cp.__version__
        return cp
    except Exception as e:  # ImportError, or CUDA errors when there is no GPU
        out["missing"]["CuPy"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        return None


def load_torch():
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        out["peers"]["PyTorch"] = torch.__version__
        return torch
    except Exception as e:
        out["missing"]["PyTorch"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        return None


def latency(cp, torch, quick, seed):
    """One tiny kernel (64 threads, each adds 1 to its counter), launch + synchronize, as LatencySuite times it."""
    import random
    rnd = random.Random(seed)
    init = [rnd.getrandbits(32) for _ in range(64)]
    iters, warm = (200, 20) if quick else (20000, 2000)
    if cp is not None:
        o = cp.asarray(init, dtype=cp.uint32)
        k = cp.RawKernel(TINY, "tiny")
        dev = cp.cuda.Device()

        def body():
            k((1,), (64,), (o,))
            dev.synchronize()
        t = wall(body, warm, iters)
        if check("tiny kernel CuPy, counters after %d launches" % (warm + iters), counters(o.get(), init, warm + iters)):
            figure("round trip", "CuPy RawKernel + synchronize", 0, t)
    if torch is not None:
        # int64 holds the uint32 counters exactly; add_(1) is one elementwise kernel over 64 elements
        o = torch.tensor(init, dtype=torch.int64, device="cuda")

        def body():
            o.add_(1)
            torch.cuda.synchronize()
        t = wall(body, warm, iters)
        if check("tiny kernel PyTorch, counters after %d launches" % (warm + iters),
                 counters(o.cpu().tolist(), init, warm + iters)):
            figure("round trip", "PyTorch add_ + synchronize", 0, t)


def dependent_adds(cp, torch, n, lengths, reps, warm, metric):
    """Chains of dependent `o += a + b` (a = 1, b = 0) over n uints: per node, CUDA graph and plain launches."""
    block = 256
    grid = (n + block - 1) // block
    if cp is not None:
        k = cp.RawKernel(ADD, "add")
        a = cp.ones(n, dtype=cp.uint32)
        b = cp.zeros(n, dtype=cp.uint32)
        for length in lengths:
            o = cp.zeros(n, dtype=cp.uint32)
            stream = cp.cuda.Stream(non_blocking=True)
            nn = cp.uint32(n)
            with stream:
                def launches():
                    for _ in range(length):
                        k((grid,), (block,), (a, b, o, nn))

                def loop():
                    launches()
                    stream.synchronize()
                t_loop = wall(loop, warm, reps)
                stream.begin_capture()
                launches()
                graph = stream.end_capture()

                def replay():
                    graph.launch(stream)
                    stream.synchronize()
                t_graph = wall(replay, warm, reps)
                expected = 2 * (warm + reps) * length  # the loop's and the graph's runs; capturing runs nothing
                if check("CuPy chain of %d, every output = %d" % (length, expected), uniform(o.get(), expected, "CuPy")):
                    figure(metric % length, "CuPy launches", 0, [t / length for t in t_loop])
                    figure(metric % length, "CuPy CUDA graph", 0, [t / length for t in t_graph])
    if torch is not None:
        a = torch.ones(n, dtype=torch.int32, device="cuda")
        for length in lengths:
            o = torch.zeros(n, dtype=torch.int32, device="cuda")
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                def launches():
                    for _ in range(length):
                        o.add_(a)  # one kernel per node; reads one vector less than o += a + b

                def loop():
                    launches()
                    stream.synchronize()
                t_loop = wall(loop, warm, reps)
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g, stream=stream):
                    launches()

                def replay():
                    g.replay()
                    stream.synchronize()
                t_graph = wall(replay, warm, reps)
            expected = 2 * (warm + reps) * length  # the loop's and the graph's runs; capturing runs nothing
            if check("PyTorch chain of %d, every output = %d" % (length, expected),
                     uniform(o.cpu().tolist(), expected, "PyTorch")):
                figure(metric % length, "PyTorch launches", 0, [t / length for t in t_loop])
                figure(metric % length, "PyTorch CUDA graph", 0, [t / length for t in t_graph])


def figure_raw(metric, impl, bytes_, unit, samples):
    out["figures"].append({"metric": metric, "impl": impl, "bytes": bytes_, "unit": unit, "samples": list(samples)})


def gpu_time(xp_events, sync, body, reps, rounds):
    """GPU ns per call: events around reps calls, rounds times (after warm-up calls, as the Java side does)."""
    t_end = time.perf_counter() + 0.3
    i = 0
    while i < 3 or (i < 20000 and time.perf_counter() < t_end):
        body()
        i += 1
    sync()
    res = []
    for _ in range(rounds):
        a, b = xp_events()
        a.record()
        for _ in range(reps):
            body()
        b.record()
        b.synchronize()
        res.append(xp_events.elapsed(a, b) * 1e6 / reps)
    return res


def cuda_suite(cp, torch, sizes, gemms, quick):
    """The cuda suite's work (CudaSuite): element-wise, sums, GEMM, op + sync; each result checked before timing."""
    import numpy as np
    reps, rounds = (3, 2) if quick else (10, 5)

    def values(n, salt):
        i = np.arange(n, dtype=np.int64)
        return (((i * (31 + salt) + salt) % 1000) / 500.0 - 1.0).astype(np.float32)

    class CpEvents:
        def __call__(self):
            return cp.cuda.Event(), cp.cuda.Event()

        @staticmethod
        def elapsed(a, b):
            return cp.cuda.get_elapsed_time(a, b)

    class TorchEvents:
        def __call__(self):
            return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        @staticmethod
        def elapsed(a, b):
            return a.elapsed_time(b)

    def rate(ns, nbytes):
        return [nbytes / t for t in ns]

    def close(got, want, tol):
        got = np.asarray(got, dtype=np.float64)
        bad = np.nonzero(np.abs(got - want) > tol * np.maximum(1.0, np.abs(want)))[0]
        return None if len(bad) == 0 else "element %d is %r, expected %r" % (bad[0], got[bad[0]], want[bad[0]])

    if cp is not None:
        # named functions: cupy.fuse names its kernel after the function, and "<lambda>" is no C identifier
        def saxpy(x, y):
            return 2.0 * x + y

        def five_ops(x, y):
            return cp.sqrt(cp.abs(cp.sin(2.0 * x + y))) * 0.5

        saxpy_fused = cp.fuse(kernel_name="jk_peer_saxpy")(saxpy)
        five_fused = cp.fuse(kernel_name="jk_peer_five_ops")(five_ops)
    for nbytes in sizes:
        n = nbytes // 4
        hx, hy = values(n, 0), values(n, 7)
        k = min(n, 1 << 20)
        w_saxpy = 2.0 * hx[:k].astype(np.float64) + hy[:k]
        w_five = np.sqrt(np.abs(np.sin((2.0 * hx[:k] + hy[:k]).astype(np.float32).astype(np.float64)))) * 0.5
        if cp is not None:
            x, y = cp.asarray(hx), cp.asarray(hy)
            for name, f, want, metric, tol in (("CuPy", lambda: 2.0 * x + y, w_saxpy, "2x+y", 1e-6),
                                               ("CuPy fuse", lambda: saxpy_fused(x, y), w_saxpy, "2x+y", 1e-6),
                                               ("CuPy", lambda: cp.sqrt(cp.abs(cp.sin(2.0 * x + y))) * 0.5, w_five, "5-op", 2e-6),
                                               ("CuPy fuse", lambda: five_fused(x, y), w_five, "5-op", 2e-6)):
                r = f()
                if check("%s %d B %s" % (metric, nbytes, name), close(cp.asnumpy(r[:k]), want, tol)):
                    figure_raw(metric, name, nbytes, "GB/s", rate(gpu_time(CpEvents(), cp.cuda.Device().synchronize, f, reps, rounds), 3.0 * nbytes))
                del r
            # sums
            ref = float(np.sum(hx.astype(np.float64)))
            s = float(x.sum())
            if check("sum all %d B CuPy" % nbytes, None if abs(s - ref) <= 1e-6 * n else "sum %r, expected %r" % (s, ref)):
                figure_raw("sum all", "CuPy", nbytes, "GB/s", rate(gpu_time(CpEvents(), cp.cuda.Device().synchronize, lambda: x.sum(), reps, rounds), nbytes))
            m = x.reshape(-1, 4096)
            figure_raw("sum axis -1", "CuPy", nbytes, "GB/s", rate(gpu_time(CpEvents(), cp.cuda.Device().synchronize, lambda: m.sum(axis=-1), reps, rounds), nbytes))
            figure_raw("sum axis 0", "CuPy", nbytes, "GB/s", rate(gpu_time(CpEvents(), cp.cuda.Device().synchronize, lambda: m.sum(axis=0), reps, rounds), nbytes))
            del x, y, m
            cp.get_default_memory_pool().free_all_blocks()
        if torch is not None:
            x, y = torch.from_numpy(hx).cuda(), torch.from_numpy(hy).cuda()
            for name, f, want, metric, tol in (("PyTorch", lambda: torch.add(y, x, alpha=2.0), w_saxpy, "2x+y", 1e-6),
                                               ("PyTorch", lambda: torch.sqrt(torch.abs(torch.sin(2.0 * x + y))) * 0.5, w_five, "5-op", 2e-6)):
                r = f()
                if check("%s %d B %s" % (metric, nbytes, name), close(r[:k].cpu().numpy(), want, tol)):
                    figure_raw(metric, name, nbytes, "GB/s", rate(gpu_time(TorchEvents(), torch.cuda.synchronize, f, reps, rounds), 3.0 * nbytes))
                del r
            figure_raw("sum all", "PyTorch", nbytes, "GB/s", rate(gpu_time(TorchEvents(), torch.cuda.synchronize, lambda: x.sum(), reps, rounds), nbytes))
            del x, y
            torch.cuda.empty_cache()
    for n in gemms:
        flops = 2.0 * n * n * n
        ha, hb = values(n * n, 1).reshape(n, n), values(n * n, 2).reshape(n, n)
        want_row = ha[0].astype(np.float64) @ hb[:, :64].astype(np.float64)
        if cp is not None:
            a, b = cp.asarray(ha), cp.asarray(hb)
            c = a @ b
            if check("GEMM float32 %d CuPy" % n, close(cp.asnumpy(c[0, :64]), want_row, 1e-3 * n ** 0.5)):
                ns = gpu_time(CpEvents(), cp.cuda.Device().synchronize, lambda: a @ b, 5, rounds)
                figure_raw("GEMM float32", "CuPy", n, "TFLOP/s", [flops / t / 1e3 for t in ns])
            try:
                import ml_dtypes  # CuPy has bfloat16 only through ml_dtypes, where installed
                ab, bb = a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16)
                ab @ bb
                ns = gpu_time(CpEvents(), cp.cuda.Device().synchronize, lambda: ab @ bb, 5, rounds)
                figure_raw("GEMM bfloat16", "CuPy", n, "TFLOP/s", [flops / t / 1e3 for t in ns])
                del ab, bb
            except Exception as e:
                out["notes"].append("CuPy bfloat16 GEMM not run: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
            del a, b, c
            cp.get_default_memory_pool().free_all_blocks()
        if torch is not None:
            torch.backends.cuda.matmul.allow_tf32 = False
            a, b = torch.from_numpy(ha).cuda(), torch.from_numpy(hb).cuda()
            c = a @ b
            if check("GEMM float32 %d PyTorch" % n, close(c[0, :64].cpu().numpy(), want_row, 1e-3 * n ** 0.5)):
                ns = gpu_time(TorchEvents(), torch.cuda.synchronize, lambda: a @ b, 5, rounds)
                figure_raw("GEMM float32", "PyTorch", n, "TFLOP/s", [flops / t / 1e3 for t in ns])
            ab, bb = a.bfloat16(), b.bfloat16()
            ns = gpu_time(TorchEvents(), torch.cuda.synchronize, lambda: ab @ bb, 5, rounds)
            figure_raw("GEMM bfloat16", "PyTorch", n, "TFLOP/s", [flops / t / 1e3 for t in ns])
            del a, b, c, ab, bb
            torch.cuda.empty_cache()
    # one small op + synchronize, wall clock
    lat_reps = 200 if quick else 5000
    if cp is not None:
        x = cp.zeros(1024, dtype=cp.float32)
        dev = cp.cuda.Device()
        if check("op + sync CuPy", None if float((x + 1.0)[1023]) == 1.0 else "x + 1 is wrong"):
            def op():
                x + 1.0
                dev.synchronize()
            figure_raw("op + sync", "CuPy", 4096, "µs", [t / 1e3 for t in wall(op, lat_reps // 10, lat_reps)])
    if torch is not None:
        x = torch.zeros(1024, dtype=torch.float32, device="cuda")

        def op():
            x + 1.0
            torch.cuda.synchronize()
        figure_raw("op + sync", "PyTorch", 4096, "µs", [t / 1e3 for t in wall(op, lat_reps // 10, lat_reps)])


def main():
    args = sys.argv[1:]
    suite = args[0] if args else "latency"
    quick = "--quick" in args
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 42
    cp = load_cupy()
    torch = load_torch()
    if suite == "latency":
        latency(cp, torch, quick, seed)
    elif suite == "throughput":
        # Kompute's shape per dispatch: 10 × 10 dependent dispatches; a CUDA graph of the 100, and plain launches
        dependent_adds(cp, torch, 10240 if quick else 102400, [100], 5 if quick else 2000, 1 if quick else 100,
                       "per dispatch, wall (graph of %d)")
    elif suite == "chain":
        dependent_adds(cp, torch, 10240 if quick else 1 << 20, [10, 100, 1000], 5 if quick else 200, 1 if quick else 20,
                       "per node, wall, chain of %d")
    elif suite == "cuda":
        sizes = [int(v) for v in args[args.index("--sizes") + 1].split(",")] if "--sizes" in args else [1 << 20]
        gemms = [int(v) for v in args[args.index("--gemm") + 1].split(",")] if "--gemm" in args else [512]
        cuda_suite(cp, torch, sizes, gemms, quick)
    else:
        out["notes"].append("peers.py has no suite " + suite)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
