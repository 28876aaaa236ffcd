package io.jkompute.cuda;

/**
 * CUDA cannot be used on this machine: the driver library is missing or too old, or no device is present. The
 * message says what was tried and what to install.
 */
public final class CudaUnavailableException extends CudaException {
    /** The pseudo result for "driver library not found" (CUDA itself would report it as a stub/no-device error). */
    public static final CudaError DRIVER_NOT_FOUND = new CudaError(-1, "JKOMPUTE_DRIVER_NOT_FOUND",
            "the NVIDIA driver library libcuda.so.1 could not be loaded");

    CudaUnavailableException(String message) {
        super(message, DRIVER_NOT_FOUND, null);
    }
}
