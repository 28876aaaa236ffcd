"""jkompute's side of the embedded interpreter: start-up, codelet creation and error description.

Loaded once per process as module _jkompute_engine; the gxf package talks to the graph through _jkompute, the native
module whose functions are Java methods."""
import sys
import traceback
import types


class JavaError(RuntimeError):
    """A Java exception raised into Python by a _jkompute call. Left unhandled, Java gets its own exception back."""

    def __init__(self, message, java_id=0):
        super().__init__(message)
        self.java_id = java_id


def setup(path, prefix, exec_prefix, executable, modules):
    """sys as the chosen interpreter has it (venv / conda site-packages), then the gxf package from the jar."""
    sys.path[:] = list(path)
    sys.prefix = prefix
    sys.exec_prefix = exec_prefix
    if executable:
        sys.executable = executable
    if not getattr(sys, "argv", None):
        sys.argv = [""]
    # the interpreter is never finalised (see Interpreter.java), so nothing printed may wait in a buffer
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(line_buffering=True)
        except (AttributeError, ValueError):
            pass
    mods = []
    for name, file, code, package in modules:
        m = types.ModuleType(name)
        m.__file__ = file
        if package:
            m.__path__ = []
        sys.modules[name] = m
        mods.append((name, m, file, code))
    for name, m, file, code in mods:
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, m)
        exec(compile(code, file, "exec"), m.__dict__)


def load_class(path, class_name):
    from gxf.python_codelet.codelet import _load_class
    return _load_class(path, class_name)


def new_codelet(cls, bridge):
    """As GXF's PyCodeletV0 at start(): the class instantiated with no arguments, then set_bridge."""
    from gxf.python_codelet.codelet import _Bridge
    instance = cls()
    instance.set_bridge(_Bridge(bridge))
    return instance


def _library_folders():
    import os
    import sysconfig
    folders = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            folders.add(os.path.realpath(p) + os.sep)
    for p in sys.path:
        if p.endswith(("site-packages", "dist-packages")):
            folders.add(os.path.realpath(p) + os.sep)
    return tuple(folders)


_LIBRARIES = None


def _user_file(name):
    """Not "<jkompute>/gxf/..." (the bundled package), "<string>" (this module), "<frozen importlib...>", nor the
    standard library or installed packages (numpy.testing): the codelet's own code."""
    global _LIBRARIES
    if name.startswith("<"):
        return False
    if _LIBRARIES is None:
        _LIBRARIES = _library_folders()
    import os
    return not os.path.realpath(name).startswith(_LIBRARIES)


def describe(exc):
    """file NUL line NUL type NUL message NUL java-id NUL traceback, for Java's one-line error."""
    typ = type(exc).__name__
    message = str(exc)
    java_id = 0
    if isinstance(exc, JavaError):
        message = str(exc.args[0]) if exc.args else ""
        java_id = exc.java_id
    file, line = "", 0
    if isinstance(exc, SyntaxError) and exc.filename:
        # SyntaxError and its kind point at the offending source themselves
        file, line = exc.filename, exc.lineno or 0
        message = exc.msg or message
    else:
        tb = exc.__traceback__
        fallback = ("", 0)
        while tb is not None:
            name = tb.tb_frame.f_code.co_filename
            if _user_file(name):
                file, line = name, tb.tb_lineno
            elif not name.startswith("<"):
                fallback = (name, tb.tb_lineno)
            tb = tb.tb_next
        if not file:
            file, line = fallback
    if file:
        file = file.replace("\\", "/").rsplit("/", 1)[-1]
    try:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    except Exception:
        text = ""
    return "\0".join([file, str(line), typ, message, str(java_id), text])
