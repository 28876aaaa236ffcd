package io.jkompute.cuda;

import io.jkompute.cuda.internal.Driver;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A CUDA driver result code ({@code CUresult}) as a value: the number, the driver's symbolic name and its
 * description. {@link #SUCCESS} is code 0. Returned by the PyGPU-style low-level calls and carried by
 * {@link CudaException}.
 *
 * @param code        the numeric {@code CUresult}
 * @param name        the driver's name for it, e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}
 * @param description the driver's one-line description
 */
@SuppressWarnings("restricted") // FFM: binding native code is this class's purpose
public record CudaError(int code, String name, String description) {
    /** Code 0: the call succeeded. */
    public static final CudaError SUCCESS = new CudaError(0, "CUDA_SUCCESS", "no error");

    private static final ConcurrentHashMap<Integer, CudaError> KNOWN = new ConcurrentHashMap<>();

    /** The error for a {@code CUresult}, with the driver's name and description when the driver is loaded. */
    public static CudaError of(int code) {
        if (code == 0) return SUCCESS;
        return KNOWN.computeIfAbsent(code, CudaError::lookup);
    }

    private static CudaError lookup(int code) {
        if (Driver.unavailableReason() != null) {
            return switch (code) {
                case 100 -> new CudaError(code, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected");
                case 101 -> new CudaError(code, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal");
                default -> new CudaError(code, "CUDA_ERROR_" + code, "unknown (driver not loaded)");
            };
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            String name = Driver.getErrorName(code, out) == 0 ? cString(out) : "CUDA_ERROR_" + code;
            String text = Driver.getErrorString(code, out) == 0 ? cString(out) : "unrecognised error code";
            return new CudaError(code, name, text);
        }
    }

    private static String cString(MemorySegment out) {
        MemorySegment p = out.get(ValueLayout.ADDRESS, 0);
        return p.equals(MemorySegment.NULL) ? "?" : p.reinterpret(4096).getString(0);
    }

    /** Whether this is {@link #SUCCESS}. */
    public boolean isSuccess() {
        return code == 0;
    }

    /**
     * Whether the error leaves the context unusable for the rest of the process ("sticky" errors such as an illegal
     * address in a kernel); NVIDIA documents that the process must restart to use CUDA again.
     */
    public boolean isSticky() {
        return switch (code) {
            case 700, 701, 702, 714, 715, 716, 717, 718, 719 -> true;
            default -> false;
        };
    }

    @Override
    public String toString() {
        return "<cudaError: code=" + code + " " + name + ": " + description + ">";
    }
}
