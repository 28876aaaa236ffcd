package io.jkompute.cuda.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class NativeLibTest {

    @Test
    void aMissingLibraryListsEveryPlaceTried() {
        var e = assertThrows(NativeLib.LibraryNotFound.class, () -> NativeLib.open("jkompute.test.none", "JKOMPUTE_TEST_NONE",
                List.of("libjkompute-does-not-exist.so.1"), List.of(Path.of("/nonexistent-dir"))));
        assertEquals(List.of("libjkompute-does-not-exist.so.1", "/nonexistent-dir/libjkompute-does-not-exist.so.1"), e.tried);
    }

    @Test
    void anExplicitPathThatDoesNotLoadIsReportedAsSuch() {
        System.setProperty("jkompute.test.lib", "/nonexistent/libcuda.so.1");
        try {
            var e = assertThrows(NativeLib.LibraryNotFound.class, () -> NativeLib.open("jkompute.test.lib", "JKOMPUTE_TEST_NONE",
                    List.of("libc.so.6"), List.of()));
            assertEquals(List.of("/nonexistent/libcuda.so.1 (from jkompute.test.lib/JKOMPUTE_TEST_NONE)"), e.tried);
        } finally {
            System.clearProperty("jkompute.test.lib");
        }
    }

    @Test
    void theNoDriverMessageSaysWhatToInstall() {
        String m = Driver.unavailableMessage(List.of("libcuda.so.1", "/usr/lib64/libcuda.so.1"));
        assertTrue(m.startsWith("CUDA is not available: the NVIDIA driver library libcuda.so.1 was not found (tried libcuda.so.1, /usr/lib64/libcuda.so.1)"), m);
        assertTrue(m.contains("sudo apt install nvidia-driver-580"), m);
        assertTrue(m.contains("--gpus all"), m);
        assertTrue(m.contains("-Djkompute.cuda.driver="), m);
    }

    @Test
    void aPresentLibraryBindsTheFirstExportedSymbol() {
        NativeLib libc = NativeLib.open("jkompute.test.none", "JKOMPUTE_TEST_NONE", List.of("libc.so.6"), List.of());
        var fd = java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT);
        assertTrue(libc.find(fd, new java.lang.foreign.Linker.Option[0], "no_such_symbol_v2", "getpid").isPresent());
        assertTrue(libc.find(fd, new java.lang.foreign.Linker.Option[0], "no_such_symbol_v2").isEmpty());
    }
}
