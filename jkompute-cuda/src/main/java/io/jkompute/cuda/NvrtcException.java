package io.jkompute.cuda;

/** NVRTC could not compile a CUDA C++ source; {@link #log()} is the compiler's output (errors with line numbers). */
public final class NvrtcException extends RuntimeException {
    /** NVRTC's result code. */
    private final int code;
    /** The compiler's output; empty when it wrote none. */
    private final String log;

    NvrtcException(String message, int code, String log) {
        super(log == null || log.isBlank() ? message : message + ":\n" + log.strip());
        this.code = code;
        this.log = log == null ? "" : log;
    }

    /** The {@code nvrtcResult} code (e.g. 6, NVRTC_ERROR_COMPILATION). */
    public int code() {
        return code;
    }

    /** The compiler log. */
    public String log() {
        return log;
    }
}
