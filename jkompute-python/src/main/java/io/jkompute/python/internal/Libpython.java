package io.jkompute.python.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads the interpreter's shared library with {@code dlopen(RTLD_NOW | RTLD_GLOBAL)}. GLOBAL matters: extension
 * modules (numpy's, CuPy's) are linked against the interpreter's symbols without naming libpython, so the symbols
 * must be visible process-wide; {@link SymbolLookup#libraryLookup} would load it RTLD_LOCAL.
 */
final class Libpython {
    private static final int RTLD_NOW = 2;
    private static final int RTLD_GLOBAL = 0x100;

    private static volatile SymbolLookup lookup;
    private static volatile String loadedFrom;

    private Libpython() {
    }

    /** Loads the first candidate that dlopen accepts; one line naming every candidate tried otherwise. */
    static synchronized void load(PythonInstall install) {
        if (lookup != null) {
            return;
        }
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        MethodHandle dlopen = linker.downcallHandle(libc.find("dlopen").orElseThrow(),
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        MethodHandle dlerror = linker.downcallHandle(libc.find("dlerror").orElseThrow(), FunctionDescriptor.of(ADDRESS));
        MethodHandle dlsym = linker.downcallHandle(libc.find("dlsym").orElseThrow(),
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        List<String> errors = new ArrayList<>();
        for (String candidate : install.libraries()) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment handle = (MemorySegment) dlopen.invokeExact(a.allocateFrom(candidate),
                        RTLD_NOW | RTLD_GLOBAL);
                if (handle.address() != 0) {
                    lookup = name -> {
                        try (Arena n = Arena.ofConfined()) {
                            MemorySegment s = (MemorySegment) dlsym.invokeExact(handle, n.allocateFrom(name));
                            return s.address() == 0 ? java.util.Optional.empty() : java.util.Optional.of(s);
                        } catch (Throwable t) {
                            throw new IllegalStateException(t);
                        }
                    };
                    loadedFrom = candidate;
                    return;
                }
                MemorySegment err = (MemorySegment) dlerror.invokeExact();
                errors.add(err.address() == 0 ? candidate : err.reinterpret(4096).getString(0));
            } catch (Throwable t) {
                errors.add(candidate + ": " + t);
            }
        }
        throw new PythonUnavailableException("no libpython for " + install.describe() + " (from " + install.origin()
                + "; tried " + String.join("; ", errors) + "): install it with " + PythonInstall.INSTALL_HINT);
    }

    static SymbolLookup lookup() {
        SymbolLookup l = lookup;
        if (l == null) {
            throw new IllegalStateException("libpython is not loaded");
        }
        return l;
    }

    static String loadedFrom() {
        return loadedFrom;
    }
}
