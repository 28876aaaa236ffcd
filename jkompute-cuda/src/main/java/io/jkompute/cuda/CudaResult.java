package io.jkompute.cuda;

/**
 * A device call's value together with its {@link CudaError}, PyGPU's {@code (value, cudaError_t)} pair: the value is
 * null unless {@link #error()} is success.
 */
public record CudaResult<T>(T value, CudaError error) {
    static <T> CudaResult<T> of(T value, CudaError error) {
        return new CudaResult<>(value, error);
    }

    static <T> CudaResult<T> failed(CudaError error) {
        return new CudaResult<>(null, error);
    }

    /** Whether the call succeeded (then {@link #value()} is set). */
    public boolean isSuccess() {
        return error.isSuccess();
    }
}
