package io.jkompute.python.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The CPython C API functions jkompute calls, bound once {@link Libpython} has loaded the library (this class must not
 * be initialised before). Only functions of the stable ABI (or exported by every CPython 3.9 to 3.13) and no struct
 * layouts except PyModuleDef / PyMethodDef, which are part of the stable ABI, so one build serves 3.11 and 3.12.
 * Static final handles so the JIT binds each call directly.
 */
final class Py {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIB = Libpython.lookup();

    /** Py_file_input, the start symbol for a module's worth of statements. */
    static final int FILE_INPUT = 257;

    private static final MethodHandle PY_INITIALIZEEX = h("Py_InitializeEx", FunctionDescriptor.ofVoid(JAVA_INT));
    private static final MethodHandle PY_ISINITIALIZED = h("Py_IsInitialized", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle PYEVAL_SAVETHREAD = h("PyEval_SaveThread", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle PYEVAL_RESTORETHREAD = h("PyEval_RestoreThread", FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle PYTHREADSTATE_GET = h("PyThreadState_Get", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle PYTHREADSTATE_GETINTERPRETER = h("PyThreadState_GetInterpreter", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle PYTHREADSTATE_NEW = h("PyThreadState_New", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle PYTHREADSTATE_CLEAR = h("PyThreadState_Clear", FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle PYTHREADSTATE_DELETE = h("PyThreadState_Delete", FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle PYRUN_STRING = h("PyRun_String", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle PYIMPORT_ADDMODULE = h("PyImport_AddModule", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle PYMODULE_GETDICT = h("PyModule_GetDict", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle PYIMPORT_IMPORTMODULE = h("PyImport_ImportModule", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle PYIMPORT_GETMODULEDICT = h("PyImport_GetModuleDict", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle PYDICT_SETITEMSTRING = h("PyDict_SetItemString", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle PYOBJECT_GETATTRSTRING = h("PyObject_GetAttrString", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle PYOBJECT_CALLNOARGS = h("PyObject_CallNoArgs", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle PYOBJECT_CALLOBJECT = h("PyObject_CallObject", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle PYERR_OCCURRED = leaf("PyErr_Occurred", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle PYERR_FETCH = h("PyErr_Fetch", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle PYERR_NORMALIZEEXCEPTION = h("PyErr_NormalizeException", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle PYEXCEPTION_SETTRACEBACK = h("PyException_SetTraceback", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle PYERR_CLEAR = h("PyErr_Clear", FunctionDescriptor.ofVoid());
    private static final MethodHandle PYERR_SETSTRING = h("PyErr_SetString", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
    private static final MethodHandle PYERR_SETOBJECT = h("PyErr_SetObject", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
    private static final MethodHandle PYLONG_FROMLONGLONG = leaf("PyLong_FromLongLong", FunctionDescriptor.of(ADDRESS, JAVA_LONG));
    private static final MethodHandle PYLONG_ASLONGLONG = h("PyLong_AsLongLong", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle PYFLOAT_FROMDOUBLE = leaf("PyFloat_FromDouble", FunctionDescriptor.of(ADDRESS, JAVA_DOUBLE));
    private static final MethodHandle PYFLOAT_ASDOUBLE = h("PyFloat_AsDouble", FunctionDescriptor.of(JAVA_DOUBLE, ADDRESS));
    private static final MethodHandle PYBOOL_FROMLONG = leaf("PyBool_FromLong", FunctionDescriptor.of(ADDRESS, JAVA_LONG));
    private static final MethodHandle PYUNICODE_FROMSTRINGANDSIZE = leaf("PyUnicode_FromStringAndSize", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle PYUNICODE_ASUTF8ANDSIZE = h("PyUnicode_AsUTF8AndSize", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle PYTUPLE_NEW = h("PyTuple_New", FunctionDescriptor.of(ADDRESS, JAVA_LONG));
    private static final MethodHandle PYTUPLE_SETITEM = leaf("PyTuple_SetItem", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    private static final MethodHandle PY_INCREF = leaf("Py_IncRef", FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle PY_DECREF = h("Py_DecRef", FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle PYMODULE_CREATE2 = h("PyModule_Create2", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle PYDESCR_NEWMETHOD = h("PyDescr_NewMethod", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle PYOBJECT_GETATTR = h("PyObject_GetAttr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle PYUNICODE_INTERNFROMSTRING = h("PyUnicode_InternFromString", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle PYOBJECT_TYPE = leaf("PyObject_Type", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle PY_DECREF_HELD = leaf("Py_DecRef", FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle PYTUPLE_SIZE = leaf("PyTuple_Size", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle PYTUPLE_GETITEM = leaf("PyTuple_GetItem", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle PYLIST_SIZE = leaf("PyList_Size", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle PYLIST_GETITEM = leaf("PyList_GetItem", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle PYLONG_ASUNSIGNEDLONGLONGMASK = h("PyLong_AsUnsignedLongLongMask", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle PYOBJECT_ISTRUE = h("PyObject_IsTrue", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle PYOBJECT_SETATTRSTRING = h("PyObject_SetAttrString", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static void Py_InitializeEx(int a0) {
        try {
            PY_INITIALIZEEX.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int Py_IsInitialized() {
        try {
            return (int) PY_ISINITIALIZED.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyEval_SaveThread() {
        try {
            return (MemorySegment) PYEVAL_SAVETHREAD.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void PyEval_RestoreThread(MemorySegment a0) {
        try {
            PYEVAL_RESTORETHREAD.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyThreadState_Get() {
        try {
            return (MemorySegment) PYTHREADSTATE_GET.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyThreadState_GetInterpreter(MemorySegment a0) {
        try {
            return (MemorySegment) PYTHREADSTATE_GETINTERPRETER.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyThreadState_New(MemorySegment a0) {
        try {
            return (MemorySegment) PYTHREADSTATE_NEW.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void PyThreadState_Clear(MemorySegment a0) {
        try {
            PYTHREADSTATE_CLEAR.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void PyThreadState_Delete(MemorySegment a0) {
        try {
            PYTHREADSTATE_DELETE.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyRun_String(MemorySegment a0, int a1, MemorySegment a2, MemorySegment a3) {
        try {
            return (MemorySegment) PYRUN_STRING.invokeExact(a0, a1, a2, a3);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyImport_AddModule(MemorySegment a0) {
        try {
            return (MemorySegment) PYIMPORT_ADDMODULE.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyModule_GetDict(MemorySegment a0) {
        try {
            return (MemorySegment) PYMODULE_GETDICT.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyImport_ImportModule(MemorySegment a0) {
        try {
            return (MemorySegment) PYIMPORT_IMPORTMODULE.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyImport_GetModuleDict() {
        try {
            return (MemorySegment) PYIMPORT_GETMODULEDICT.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int PyDict_SetItemString(MemorySegment a0, MemorySegment a1, MemorySegment a2) {
        try {
            return (int) PYDICT_SETITEMSTRING.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyObject_GetAttrString(MemorySegment a0, MemorySegment a1) {
        try {
            return (MemorySegment) PYOBJECT_GETATTRSTRING.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyObject_CallNoArgs(MemorySegment a0) {
        try {
            return (MemorySegment) PYOBJECT_CALLNOARGS.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyObject_CallObject(MemorySegment a0, MemorySegment a1) {
        try {
            return (MemorySegment) PYOBJECT_CALLOBJECT.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyErr_Occurred() {
        try {
            return (MemorySegment) PYERR_OCCURRED.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void PyErr_Fetch(MemorySegment a0, MemorySegment a1, MemorySegment a2) {
        try {
            PYERR_FETCH.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void PyErr_NormalizeException(MemorySegment a0, MemorySegment a1, MemorySegment a2) {
        try {
            PYERR_NORMALIZEEXCEPTION.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int PyException_SetTraceback(MemorySegment a0, MemorySegment a1) {
        try {
            return (int) PYEXCEPTION_SETTRACEBACK.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void PyErr_Clear() {
        try {
            PYERR_CLEAR.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void PyErr_SetString(MemorySegment a0, MemorySegment a1) {
        try {
            PYERR_SETSTRING.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void PyErr_SetObject(MemorySegment a0, MemorySegment a1) {
        try {
            PYERR_SETOBJECT.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyLong_FromLongLong(long a0) {
        try {
            return (MemorySegment) PYLONG_FROMLONGLONG.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long PyLong_AsLongLong(MemorySegment a0) {
        try {
            return (long) PYLONG_ASLONGLONG.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyFloat_FromDouble(double a0) {
        try {
            return (MemorySegment) PYFLOAT_FROMDOUBLE.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static double PyFloat_AsDouble(MemorySegment a0) {
        try {
            return (double) PYFLOAT_ASDOUBLE.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyBool_FromLong(long a0) {
        try {
            return (MemorySegment) PYBOOL_FROMLONG.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyUnicode_FromStringAndSize(MemorySegment a0, long a1) {
        try {
            return (MemorySegment) PYUNICODE_FROMSTRINGANDSIZE.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyUnicode_AsUTF8AndSize(MemorySegment a0, MemorySegment a1) {
        try {
            return (MemorySegment) PYUNICODE_ASUTF8ANDSIZE.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyTuple_New(long a0) {
        try {
            return (MemorySegment) PYTUPLE_NEW.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int PyTuple_SetItem(MemorySegment a0, long a1, MemorySegment a2) {
        try {
            return (int) PYTUPLE_SETITEM.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void Py_IncRef(MemorySegment a0) {
        try {
            PY_INCREF.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void Py_DecRef(MemorySegment a0) {
        try {
            PY_DECREF.invokeExact(a0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyModule_Create2(MemorySegment a0, int a1) {
        try {
            return (MemorySegment) PYMODULE_CREATE2.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyDescr_NewMethod(MemorySegment type, MemorySegment def) {
        try {
            return (MemorySegment) PYDESCR_NEWMETHOD.invokeExact(type, def);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int PyObject_SetAttrString(MemorySegment o, MemorySegment name, MemorySegment v) {
        try {
            return (int) PYOBJECT_SETATTRSTRING.invokeExact(o, name, v);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyObject_GetAttr(MemorySegment o, MemorySegment name) {
        try {
            return (MemorySegment) PYOBJECT_GETATTR.invokeExact(o, name);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment PyUnicode_InternFromString(MemorySegment s) {
        try {
            return (MemorySegment) PYUNICODE_INTERNFROMSTRING.invokeExact(s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A new reference to o's type (only a reference count changes: a leaf call). */
    static MemorySegment PyObject_Type(MemorySegment o) {
        try {
            return (MemorySegment) PYOBJECT_TYPE.invokeExact(o);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Py_DecRef of an object that something else still references (a type, an attribute its owner keeps): the count
     * cannot reach zero, so no deallocator or finalizer runs and the call is a leaf.
     */
    static void Py_DecRefHeld(MemorySegment o) {
        try {
            PY_DECREF_HELD.invokeExact(o);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long PyTuple_Size(MemorySegment o) {
        try {
            return (long) PYTUPLE_SIZE.invokeExact(o);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A borrowed item; the index must be in range (the error path would allocate). */
    static MemorySegment PyTuple_GetItem(MemorySegment o, long index) {
        try {
            return (MemorySegment) PYTUPLE_GETITEM.invokeExact(o, index);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long PyList_Size(MemorySegment o) {
        try {
            return (long) PYLIST_SIZE.invokeExact(o);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A borrowed item; the index must be in range (the error path would allocate). */
    static MemorySegment PyList_GetItem(MemorySegment o, long index) {
        try {
            return (MemorySegment) PYLIST_GETITEM.invokeExact(o, index);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long PyLong_AsUnsignedLongLongMask(MemorySegment o) {
        try {
            return (long) PYLONG_ASUNSIGNEDLONGLONGMASK.invokeExact(o);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int PyObject_IsTrue(MemorySegment o) {
        try {
            return (int) PYOBJECT_ISTRUE.invokeExact(o);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The address of a data symbol (PyExc_RuntimeError is a PyObject*; _Py_NoneStruct is the object itself). */
    static MemorySegment symbol(String name) {
        return LIB.find(name).orElseThrow(() -> new IllegalStateException("libpython lacks " + name));
    }

    /** The value of a PyObject* global such as PyExc_RuntimeError. */
    static MemorySegment global(String name) {
        return symbol(name).reinterpret(ADDRESS.byteSize()).get(ADDRESS, 0);
    }

    private static MethodHandle h(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(symbol(name), d);
    }

    /**
     * A function that runs no Python code and cannot reach a finalizer (so never calls back into Java) and returns
     * at once: bound as a critical downcall, without the thread-state transition that costs as much as the call
     * itself. The per-frame tensor descriptions are built from these. Not for anything that may decref, allocate a
     * GC-tracked object (a collection can run {@code __del__}), or call a Python method ({@code __index__},
     * {@code __float__}).
     */
    private static MethodHandle leaf(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(symbol(name), d, Linker.Option.critical(false));
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    private Py() {
    }
}
