package io.jkompute.examples;

import static org.junit.jupiter.api.Assertions.*;

import io.jkompute.Manager;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExamplesTest {

    @Test
    void logisticRegressionLearnsTheDocumentedWeights() {
        try (Manager mgr = new Manager()) {
            LogisticRegression.Result r = LogisticRegression.train(mgr, 100, 0.1f);
            assertTrue(r.w0() > 0 && r.w0() < 0.01, "0 < w0 < 0.01: " + r);
            assertTrue(r.w1() > 1.5, "w1 > 1.5: " + r);
            assertTrue(r.b() < 0.7, "b < 0.7: " + r);
        }
    }

    @Test
    void arrayMultiplication() {
        try (Manager mgr = new Manager()) {
            assertArrayEquals(new float[] {0, 4, 12}, ArrayMultiplication.multiply(mgr, new float[] {2, 4, 6}, new float[] {0, 1, 2}));
        }
    }

    @Test
    void pushAndSpecializationConstants() {
        try (Manager mgr = new Manager()) {
            assertArrayEquals(new float[] {30, 32.5f, 35}, PushAndSpecializationConstants.compute(mgr));
        }
    }

    @Test
    void asyncQueuesMatchTheCpu() {
        int[] families;
        try (Manager probe = new Manager()) {
            families = AsyncQueues.twoComputeQueues(probe.deviceProperties());
        }
        try (Manager mgr = new Manager(0, families, List.of())) {
            int[] c = AsyncQueues.compute(mgr, 500);
            for (int i = 0; i < AsyncQueues.N; i++) {
                assertEquals(AsyncQueues.reference(i, 0x1234, 500) ^ AsyncQueues.reference(i, 0xBEEF, 500), c[i], "at " + i);
            }
        }
    }

    @Test
    void everyExampleRunsAndPrints() {
        for (Example e : Examples.all()) {
            if (e.name().startsWith("cuda")) {
                continue;   // needs an NVIDIA driver; covered by the cuda module's GPU tests
            }
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            e.run(new PrintStream(buf, true, StandardCharsets.UTF_8));
            String out = buf.toString(StandardCharsets.UTF_8);
            assertTrue(out.startsWith("device: "), e.name() + " printed: " + out);
            assertFalse(out.contains("DOES NOT HOLD") || out.contains("MISMATCH"), e.name() + " printed: " + out);
        }
        assertEquals("logistic-regression", Examples.byName("logistic-regression").orElseThrow().name());
        assertTrue(Examples.byName("nope").isEmpty());
    }
}
