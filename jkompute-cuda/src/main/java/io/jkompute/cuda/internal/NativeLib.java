package io.jkompute.cuda.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A shared library opened at run time, with a record of where it was looked for so that a missing library is
 * reported with every place tried rather than as a bare link error.
 */
@SuppressWarnings("restricted") // FFM: binding native code is this class's purpose
public final class NativeLib {
    static final Linker LINKER = Linker.nativeLinker();

    private final String name;
    private final SymbolLookup lookup;

    private NativeLib(String name, SymbolLookup lookup) {
        this.name = name;
        this.lookup = lookup;
    }

    /**
     * Opens the first library that loads: an explicit path from {@code overrideProperty} / {@code overrideEnv} when
     * set, else each SONAME through the dynamic loader's search (ld.so.cache, LD_LIBRARY_PATH), else each SONAME
     * in each extra directory.
     *
     * @throws LibraryNotFound listing every attempt
     */
    static NativeLib open(String overrideProperty, String overrideEnv, List<String> sonames, List<Path> extraDirs) {
        List<String> tried = new ArrayList<>();
        String override = System.getProperty(overrideProperty, System.getenv(overrideEnv));
        if (override != null && !override.isBlank()) {
            try {
                return new NativeLib(override, SymbolLookup.libraryLookup(Path.of(override), Arena.global()));
            } catch (IllegalArgumentException e) {
                throw new LibraryNotFound(List.of(override + " (from " + overrideProperty + "/" + overrideEnv + ")"));
            }
        }
        for (String soname : sonames) {
            try {
                return new NativeLib(soname, SymbolLookup.libraryLookup(soname, Arena.global()));
            } catch (IllegalArgumentException e) {
                tried.add(soname);
            }
        }
        for (Path dir : extraDirs) {
            for (String soname : sonames) {
                Path p = dir.resolve(soname);
                if (!Files.exists(p)) {
                    tried.add(p.toString());
                    continue;
                }
                try {
                    return new NativeLib(p.toString(), SymbolLookup.libraryLookup(p, Arena.global()));
                } catch (IllegalArgumentException e) {
                    tried.add(p + " (exists but did not load)");
                }
            }
        }
        throw new LibraryNotFound(tried);
    }

    String name() {
        return name;
    }

    /** The first of {@code symbols} that the library exports, bound to {@code fd}; empty when none is. */
    Optional<MethodHandle> find(FunctionDescriptor fd, Linker.Option[] options, String... symbols) {
        for (String s : symbols) {
            Optional<MemorySegment> addr = lookup.find(s);
            if (addr.isPresent()) {
                return Optional.of(LINKER.downcallHandle(addr.get(), fd, options));
            }
        }
        return Optional.empty();
    }

    /** A library that none of the tried locations provided. */
    static final class LibraryNotFound extends RuntimeException {
        final List<String> tried;

        LibraryNotFound(List<String> tried) {
            super("tried " + String.join(", ", tried));
            this.tried = List.copyOf(tried);
        }
    }

    /** Thrown when a required symbol is missing: the library is older than what we bind. */
    static final class MissingSymbol extends RuntimeException {
        MissingSymbol(String lib, String symbol) {
            super(lib + " does not export " + symbol);
        }
    }
}
