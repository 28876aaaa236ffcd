package io.jkompute.cuda;

import io.jkompute.cuda.internal.CTypes;
import io.jkompute.cuda.internal.Driver;
import io.jkompute.cuda.internal.ReductionKernel;
import io.jkompute.cuda.internal.ReductionTuning;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/** The kernels behind GpuArray's reductions and array constructors: launches generated code on a stream. */
final class ArrayMath {
    private ArrayMath() {}

    static GpuArray reduce(GpuArray a, ReductionKernel.Op op, int[] axes, boolean keepDims, Stream stream) {
        int dev = a.device();
        ReductionKernel.Plan p = ReductionKernel.plan(op, a.dtype(), a.layout(), axes, keepDims, a.ptr(), GpuArray.multiprocessors(dev),
                GpuArray.capability(dev), ReductionTuning.current());
        GpuArray out = GpuArray.pooled(dev, p.out(), p.outShape());
        try {
            if (p.m() == 0) return out;
            if (p.k() == 0) {
                switch (op) {
                    case SUM, ANY -> out.fill(0L);
                    case PROD, ALL -> out.fill(1L);
                    case MEAN -> out.fill(Double.NaN);
                    default -> throw new IllegalArgumentException("zero-size array to reduction operation " + op.name().toLowerCase() + " which has no identity");
                }
                return out;
            }
            Kernel k1 = GpuArray.onDevice(dev, () -> KernelCache.get(dev, p.key(), ReductionKernel.PASS1, p::source));
            double scale = 1.0 / p.k();
            if (p.splits() == 1) {
                launch1(k1, p, a, out, 0L, 0L, 0L, scale, stream);
                return out;
            }
            try (GpuArray part = GpuArray.pooled(dev, p.acc(), new long[] {p.m() * p.splits()});
                 GpuArray idx = p.arg() ? GpuArray.pooled(dev, DType.INT64, new long[] {p.m() * p.splits()}) : null) {
                if (p.lastBlockFinishes()) {
                    // one ticket per output, and after them the chunk counter of a dynamic schedule
                    long tickets = p.m() + (p.dynamic() ? 1 : 0);
                    try (GpuArray ticket = GpuArray.pooled(dev, DType.UINT32, new long[] {tickets})) {
                        // pool memory is not zeroed: the tickets start at 0 on the stream, right before the kernel
                        long t = ticket.ptr();
                        MemorySegment s = stream == null ? MemorySegment.NULL : stream.bind();
                        ticket.memory().bind();
                        Cuda.check(Driver.memsetD32(t, 0, tickets, s), "cuMemsetD32Async");
                        launch1(k1, p, a, out, part.ptr(), idx == null ? 0L : idx.ptr(), ticket.ptr(), scale, stream);
                    }
                    return out;
                }
                Kernel k2 = GpuArray.onDevice(dev, () -> KernelCache.get(dev, p.key(), ReductionKernel.PASS2, p::source));
                launch1(k1, p, a, out, part.ptr(), idx == null ? 0L : idx.ptr(), 0L, scale, stream);
                int grid = (int) Math.min(p.m(), 65535);
                k2.launch(stream, Dim3.of(grid), Dim3.of(ReductionKernel.BLOCK), 0, part.ptr(), idx == null ? 0L : idx.ptr(), out.ptr(), p.m(), p.splits(), scale);
            }
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    private static void launch1(Kernel k, ReductionKernel.Plan p, GpuArray a, GpuArray out, long part, long idx, long ticket, double scale, Stream stream) {
        int threads = p.threads();
        Dim3 grid, block = Dim3.of(threads);
        if (p.warpRows()) {
            // one warp per row, threads / 32 rows per block
            int warps = threads / 32;
            grid = Dim3.of(1, (int) Math.min((p.m() + warps - 1) / warps, 65535));
        } else if (p.dynamic()) {
            grid = Dim3.of(p.persistentBlocks(GpuArray.multiprocessors(a.device())));
        } else if (p.rows()) {
            grid = Dim3.of(p.splits(), (int) Math.min(p.m(), 65535));
        } else {
            long bx = Math.min((p.m() + threads - 1) / threads, 65535L * 16);
            grid = Dim3.of((int) bx, p.splits());
        }
        k.launch(stream, grid, block, 0, a.ptr(), out.ptr(), part, idx, ticket, p.m(), p.k(), p.chunk(), p.splits(), scale);
    }

    // ---- constructors --------------------------------------------------------------------------------------

    static GpuArray ramp(long n, double start, double step, DType dtype) {
        GpuArray out = GpuArray.pooled(Cuda.getDevice(), dtype, new long[] {n});
        if (n == 0) return out;
        String src = CTypes.PRELUDE + "extern \"C\" __global__ void jk_ramp(i64 n, " + CTypes.storage(dtype) + "* out, double start, double step) {\n"
                + "  for (i64 i = (i64) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64) gridDim.x * blockDim.x) out[i] = "
                + CTypes.store(dtype, CTypes.convert(DType.FLOAT64, dtype, "(start + (double) i * step)")) + ";\n}\n";
        Kernel k = KernelCache.get(out.device(), "ramp|" + dtype, "jk_ramp", () -> src);
        k.launch((Stream) null, Dim3.of((int) Math.min((n + 255) / 256, 65535)), Dim3.of(256), 0, n, out.ptr(), start, step);
        return out;
    }

    static GpuArray linspace(long n, double start, double stop, double step, DType dtype) {
        GpuArray out = GpuArray.pooled(Cuda.getDevice(), dtype, new long[] {n});
        if (n == 0) return out;
        // numpy: start + i * step, and the last sample is exactly stop
        String src = CTypes.PRELUDE + "extern \"C\" __global__ void jk_linspace(i64 n, " + CTypes.storage(dtype) + "* out, double start, double stop, double step) {\n"
                + "  for (i64 i = (i64) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64) gridDim.x * blockDim.x) {\n"
                + "    double v = (n > 1 && i == n - 1) ? stop : start + (double) i * step;\n    out[i] = "
                + CTypes.store(dtype, CTypes.convert(DType.FLOAT64, dtype, "v")) + ";\n  }\n}\n";
        Kernel k = KernelCache.get(out.device(), "linspace|" + dtype, "jk_linspace", () -> src);
        k.launch((Stream) null, Dim3.of((int) Math.min((n + 255) / 256, 65535)), Dim3.of(256), 0, n, out.ptr(), start, stop, step);
        return out;
    }

    /** numpy's {@code concatenate(arrays, axis)}: the result dtype is the arrays' common type. */
    static GpuArray concatenate(int axis, GpuArray... arrays) {
        if (arrays.length == 0) throw new IllegalArgumentException("need at least one array to concatenate");
        int nd = arrays[0].ndim();
        if (nd == 0) throw new IllegalArgumentException("zero-dimensional arrays cannot be concatenated");
        int ax = axis < 0 ? axis + nd : axis;
        if (ax < 0 || ax >= nd) throw new IllegalArgumentException("axis " + axis + " is out of bounds for array of dimension " + nd);
        long[] shape = arrays[0].shape();
        DType t = arrays[0].dtype();
        long total = 0;
        for (GpuArray a : arrays) {
            long[] s = a.shape();
            if (s.length != nd) throw new IllegalArgumentException("all the input arrays must have the same number of dimensions");
            for (int d = 0; d < nd; d++) {
                if (d != ax && s[d] != shape[d]) {
                    throw new IllegalArgumentException("all the input array dimensions except for the concatenation axis must match exactly, but along dimension "
                            + d + " the arrays have sizes " + shape[d] + " and " + s[d]);
                }
            }
            total += s[ax];
            t = io.jkompute.cuda.internal.Promotion.result(t, a.dtype());
        }
        shape[ax] = total;
        GpuArray out = GpuArray.pooled(arrays[0].device(), t, shape);
        try {
            long at = 0;
            for (GpuArray a : arrays) {
                long n = a.shape()[ax];
                if (n > 0) {
                    GpuArray dst = out.slice(sliceAt(nd, ax, at, at + n));
                    a.expr().evalInto(dst, null);
                }
                at += n;
            }
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    private static Slice[] sliceAt(int nd, int ax, long from, long to) {
        Slice[] s = new Slice[nd];
        Arrays.fill(s, Slice.all());
        s[ax] = Slice.range(from, to);
        return s;
    }
}
