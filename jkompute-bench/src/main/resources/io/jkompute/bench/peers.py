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
    else:
        out["notes"].append("peers.py has no suite " + suite)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
