package io.jkompute.python;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shipped apps and this module's test graphs, whether the tests run from the module folder (Maven) or from the
 * repository root (every module's tests in one JVM, as on a GPU host).
 */
final class TestPaths {
    static final Path MODULE = Files.isDirectory(Path.of("src/test/resources/graphs")) ? Path.of(".")
            : Path.of("jkompute-python");
    static final Path APPS = MODULE.resolve("../apps").normalize();
    static final Path GRAPHS = MODULE.resolve("src/test/resources/graphs").normalize();

    private TestPaths() {
    }
}
