package io.jkompute.python.internal;

/**
 * A Python exception, described: the innermost frame of the user's code (file base name and line, null/0 when only
 * the bundled gxf package was involved), the exception's type name, its message and the traceback text.
 */
public final class PyFailure extends RuntimeException {
    private final String file;
    private final int line;
    private final String type;
    private final String pythonMessage;
    private final String traceback;

    PyFailure(String file, int line, String type, String message, String traceback) {
        super((file == null ? "" : file + ":" + line + ": ") + type + (message.isEmpty() ? "" : ": " + message));
        this.file = file;
        this.line = line;
        this.type = type;
        this.pythonMessage = message;
        this.traceback = traceback;
    }

    public String file() {
        return file;
    }

    public int line() {
        return line;
    }

    public String type() {
        return type;
    }

    public String pythonMessage() {
        return pythonMessage;
    }

    public String traceback() {
        return traceback;
    }
}
