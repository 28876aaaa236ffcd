# CUDA IPC anchor (scripts/gpu-host/net-same-host.sh runs it): a 64 MiB device buffer of one process opened in another (cudaIpcOpenMemHandle) and copied
# device to device into the second process's own buffer, against a device-to-device copy of the same size inside
# one process; both timed with CUDA events on one stream, 200 copies each.
import multiprocessing as mp, time, sys
N = 64 << 20
REPS = 200

def timed(cp, s, fn):
    e0 = cp.cuda.Event(); e1 = cp.cuda.Event()
    fn(); s.synchronize()
    e0.record(s)
    for _ in range(REPS):
        fn()
    e1.record(s); e1.synchronize()
    return cp.cuda.get_elapsed_time(e0, e1) / REPS

def child(h, q):
    import cupy as cp
    cp.cuda.Device(0).use()
    t0 = time.perf_counter()
    ptr = cp.cuda.runtime.ipcOpenMemHandle(h)
    open_ms = (time.perf_counter() - t0) * 1e3
    src = cp.cuda.MemoryPointer(cp.cuda.UnownedMemory(ptr, N, None), 0)
    own = cp.cuda.memory.Memory(N); dst = cp.cuda.memory.Memory(N)
    s = cp.cuda.Stream(non_blocking=True)
    ipc = timed(cp, s, lambda: cp.cuda.MemoryPointer(dst, 0).copy_from_device_async(src, N, s))
    local = timed(cp, s, lambda: cp.cuda.MemoryPointer(dst, 0).copy_from_device_async(cp.cuda.MemoryPointer(own, 0), N, s))
    # check: the bytes the parent wrote arrive
    a = cp.ndarray((N,), dtype=cp.uint8, memptr=src)
    ok = int(a[:16].sum()) == sum((i * 7 + 3) & 0xFF for i in range(16))
    t0 = time.perf_counter(); cp.cuda.runtime.ipcCloseMemHandle(ptr); close_ms = (time.perf_counter() - t0) * 1e3
    q.put((ipc, local, open_ms, close_ms, ok))

if __name__ == "__main__":
    import cupy as cp
    cp.cuda.Device(0).use()
    mem = cp.cuda.memory.Memory(N)
    a = cp.ndarray((N,), dtype=cp.uint8, memptr=cp.cuda.MemoryPointer(mem, 0))
    a[:] = (cp.arange(N, dtype=cp.int64) * 7 + 3).astype(cp.uint8)
    cp.cuda.Device(0).synchronize()
    h = cp.cuda.runtime.ipcGetMemHandle(mem.ptr)
    own = cp.cuda.memory.Memory(N); dst = cp.cuda.memory.Memory(N)
    s = cp.cuda.Stream(non_blocking=True)
    local_parent = timed(cp, s, lambda: cp.cuda.MemoryPointer(dst, 0).copy_from_device_async(cp.cuda.MemoryPointer(own, 0), N, s))
    ctx = mp.get_context("spawn"); q = ctx.Queue()
    p = ctx.Process(target=child, args=(h, q)); p.start()
    ipc, local, open_ms, close_ms, ok = q.get(timeout=120); p.join()
    gbs = lambda ms: N / (ms * 1e-3) / 1e9
    print(f"64 MiB DtoD in one process (parent): {local_parent:.4f} ms, {gbs(local_parent):.1f} GB/s")
    print(f"64 MiB DtoD in one process (child):  {local:.4f} ms, {gbs(local):.1f} GB/s")
    print(f"64 MiB DtoD from the other process's buffer through CUDA IPC: {ipc:.4f} ms, {gbs(ipc):.1f} GB/s, "
          f"ratio {local / ipc:.3f} of the in-process copy")
    print(f"cudaIpcOpenMemHandle {open_ms:.3f} ms, cudaIpcCloseMemHandle {close_ms:.3f} ms, payload check {'ok' if ok else 'FAILED'}")
