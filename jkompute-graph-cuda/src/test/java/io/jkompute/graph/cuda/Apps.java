package io.jkompute.graph.cuda;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Paths of the shipped apps and the module's test graphs, from the module or the repository root. */
final class Apps {
    static final Path APPS = fromModule("../apps");
    static final Path GRAPHS = fromModule("src/test/resources/graphs");
    static final Path README = fromModule("README.md");

    private Apps() {
    }

    /** The module folder under Maven; from the repository root (every module's tests in one JVM) its subfolder. */
    static Path fromModule(String relative) {
        Path module = Files.isDirectory(Path.of("src/test/java/io/jkompute/graph/cuda")) ? Path.of(".")
                : Path.of("jkompute-graph-cuda");
        return module.resolve(relative).normalize();
    }

    /** Writes {@code yaml} to a file in {@code dir} and returns it. */
    static Path write(Path dir, String name, String yaml) {
        try {
            return Files.writeString(dir.resolve(name), yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first ```yaml block of the module README. */
    static String readmeYaml() {
        try {
            String text = Files.readString(README);
            int start = text.indexOf("```yaml\n");
            int end = text.indexOf("```", start + 8);
            if (start < 0 || end < 0) {
                throw new IllegalStateException("no ```yaml block in " + README);
            }
            return text.substring(start + 8, end);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
