package io.jkompute.python.internal;

/** No usable Python: the interpreter cannot be run, or its shared library cannot be loaded. The message is one line. */
public final class PythonUnavailableException extends RuntimeException {
    public PythonUnavailableException(String message) {
        super(message);
    }
}
