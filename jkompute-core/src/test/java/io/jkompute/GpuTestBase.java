package io.jkompute;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** One Manager per test class on the default device (lavapipe in CI). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class GpuTestBase {
    Manager mgr;

    @BeforeAll
    void openManager() {
        mgr = new Manager();
    }

    @AfterAll
    void closeManager() {
        mgr.close();
        // with JKOMPUTE_VALIDATION=sync (as CI runs), any misuse of Vulkan, a missing barrier included, fails here
        org.junit.jupiter.api.Assertions.assertEquals(0, io.jkompute.internal.VulkanInstance.validationErrors(),
                "Vulkan validation errors were reported (see the test output)");
    }

    static final String COPY_SHADER = """
            #version 450
            layout (local_size_x = 1) in;
            layout (set = 0, binding = 0) buffer A { float a[]; };
            layout (set = 0, binding = 1) buffer B { float b[]; };
            void main() { uint i = gl_GlobalInvocationID.x; b[i] = a[i]; }
            """;

    /** Runs ops on a fresh sequence and closes it. */
    void run(Op... ops) {
        try (Sequence s = mgr.sequence()) {
            s.eval(ops);
        }
    }

    static <T> List<T> list(T... items) {
        return List.of(items);
    }
}
