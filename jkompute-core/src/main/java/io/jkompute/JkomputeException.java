package io.jkompute;

/**
 * Base of jkompute's own failures: a missing driver, a failed Vulkan call, a shader that does not compile.
 * Misuse of the API (wrong sizes, closed objects) raises the standard {@link IllegalArgumentException} and
 * {@link IllegalStateException} instead.
 */
public class JkomputeException extends RuntimeException {
    /** A failure with this message. */
    public JkomputeException(String message) {
        super(message);
    }

    /** A failure with this message, caused by {@code cause}. */
    public JkomputeException(String message, Throwable cause) {
        super(message, cause);
    }
}
