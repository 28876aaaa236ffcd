package io.jkompute.python;

/**
 * A Python exception raised while loading a codelet or in its {@code start}, {@code tick} or {@code stop}; the
 * message reads {@code File.py:LINE: Type: message} with the innermost frame of the user's code (just
 * {@code Type: message} when the error comes from the bundled gxf package alone, e.g. a class that is not there).
 */
public final class PythonCodeletException extends RuntimeException {
    /** The base name of the user's .py file at the innermost frame, or null. */
    private final String file;
    /** The line in {@link #file}, 0 when there is no file. */
    private final int line;
    /** The Python exception's class name. */
    private final String pythonType;
    /** The Python traceback as formatted text. */
    private final String pythonTraceback;

    PythonCodeletException(String file, int line, String pythonType, String message, String pythonTraceback,
            Throwable cause) {
        super((file == null ? "" : file + ":" + line + ": ") + pythonType + (message.isEmpty() ? "" : ": " + message),
                cause);
        this.file = file;
        this.line = line;
        this.pythonType = pythonType;
        this.pythonTraceback = pythonTraceback;
    }

    /** The base name of the user's .py file at the innermost frame, or null when no user frame was involved. */
    public String file() {
        return file;
    }

    /** The line in {@link #file()} (0 when there is no file). */
    public int line() {
        return line;
    }

    /** The Python exception's class name, e.g. {@code Exception} or {@code AssertionError}. */
    public String pythonType() {
        return pythonType;
    }

    /** The Python traceback, as traceback.format_exception prints it. */
    public String pythonTraceback() {
        return pythonTraceback;
    }
}
