package io.jkompute.cuda;

/** A CUDA driver call failed; {@link #error()} says which result code it returned. */
public class CudaException extends RuntimeException {
    private final transient CudaError error;

    /** {@code operation} failed with {@code error}; the message names both and says whether the error is sticky. */
    public CudaException(String operation, CudaError error) {
        super(operation + " failed: " + error.name() + " (" + error.code() + "): " + error.description()
                + (error.isSticky() ? " [sticky: this process can no longer use this GPU; restart it]" : ""));
        this.error = error;
    }

    /** A failure that carries a message of its own (used for errors that are not a plain result code). */
    protected CudaException(String message, CudaError error, Throwable cause) {
        super(message, cause);
        this.error = error;
    }

    /** The driver's result code. */
    public CudaError error() {
        return error;
    }
}
