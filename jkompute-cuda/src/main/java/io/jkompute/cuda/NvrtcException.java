package io.jkompute.cuda;

/** NVRTC could not compile a CUDA C++ source; {@link #log()} is the compiler's output (errors with line numbers). */
public final class NvrtcException extends RuntimeException {
    private final int code;
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
