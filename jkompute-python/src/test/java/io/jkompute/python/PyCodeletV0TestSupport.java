package io.jkompute.python;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Shared by the Python tests: the 1-based line of the first line of a file containing a text. */
final class PyCodeletV0TestSupport {
    private PyCodeletV0TestSupport() {
    }

    static int lineOf(Path file, String text) throws Exception {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError(text + " not in " + file);
    }
}
