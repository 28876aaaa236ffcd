package io.jkompute;

import java.util.List;

/**
 * GLSL that does not compile. The message is the compiler's, with line numbers
 * ({@code shader.comp:3: error: 'x' : undeclared identifier}); {@link #errors()} lists them one by one.
 */
public final class ShaderCompileException extends JkomputeException {
    /** The compiler's diagnostics, one by one. */
    private final List<Error> errors;

    /** One compiler diagnostic: the line (1-based, 0 when the compiler gave none) and the message. */
    public record Error(int line, String message) {}

    ShaderCompileException(String log, List<Error> errors) {
        super("shader compilation failed:\n" + log.strip());
        this.errors = List.copyOf(errors);
    }

    /** The compiler's diagnostics, in its order. */
    public List<Error> errors() {
        return errors;
    }
}
