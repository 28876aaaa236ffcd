package io.jkompute;

/**
 * Base of jkompute's own failures: a missing driver, a failed Vulkan call, a shader that does not compile.
 * Misuse of the API (wrong sizes, closed objects) raises the standard {@link IllegalArgumentException} and
 * {@link IllegalStateException} instead.
 */
public class JkomputeException extends RuntimeException {
    public JkomputeException(String message) {
        super(message);
    }

    public JkomputeException(String message, Throwable cause) {
        super(message, cause);
    }
}
