package io.jkompute.python.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Asking an interpreter for its library: a bad JKOMPUTE_PYTHON is one line naming it and the install command. */
class PythonInstallTest {
    @Test
    void aMissingInterpreterIsOneLine() {
        PythonUnavailableException e = assertThrows(PythonUnavailableException.class,
                () -> PythonInstall.query("/nonexistent/python3", "JKOMPUTE_PYTHON"));
        assertEquals("Python interpreter '/nonexistent/python3' (from JKOMPUTE_PYTHON) cannot be run (No such file "
                + "or directory); install Python: apt-get install python3 libpython3-dev python3-numpy "
                + "(Debian/Ubuntu), or set JKOMPUTE_PYTHON to a python3", e.getMessage());
    }

    @Test
    void aProgramThatIsNotPythonIsOneLine() {
        PythonUnavailableException e = assertThrows(PythonUnavailableException.class,
                () -> PythonInstall.query("/bin/false", "JKOMPUTE_PYTHON"));
        assertEquals("Python interpreter '/bin/false' (from JKOMPUTE_PYTHON) is not a working Python 3 (exit 1: "
                + "no output); apt-get install python3 libpython3-dev python3-numpy (Debian/Ubuntu), or set "
                + "JKOMPUTE_PYTHON to a python3", e.getMessage());
    }

    @Test
    void python3OnPathNamesItsLibraryAndPath() {
        PythonInstall p = PythonInstall.query("python3", "PATH");
        assertTrue(p.version().startsWith("3."), p.version());
        assertFalse(p.libraries().isEmpty());
        assertTrue(p.libraries().get(0).contains("libpython3"), p.libraries().toString());
        assertFalse(p.path().contains(""), "the script folder entry is dropped");
        assertTrue(p.path().stream().anyMatch(s -> s.endsWith("lib-dynload")), p.path().toString());
    }
}
