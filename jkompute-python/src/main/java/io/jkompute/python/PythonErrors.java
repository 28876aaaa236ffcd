package io.jkompute.python;

import io.jkompute.python.internal.PyFailure;

/** Turns a described Python exception into one that says where in the user's .py file things went wrong. */
final class PythonErrors {
    private PythonErrors() {
    }

    static PythonCodeletException translate(PyFailure f) {
        return new PythonCodeletException(f.file(), f.line(), f.type(), f.pythonMessage(), f.traceback(), null);
    }
}
