package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class SequenceTest extends GpuTestBase {
    static final String ADD_ONE = """
            #version 450
            layout (local_size_x = 1) in;
            layout (set = 0, binding = 0) buffer A { float a[]; };
            void main() { a[gl_GlobalInvocationID.x] += 1.0; }
            """;
    static final String SLOW = """
            #version 450
            layout (local_size_x = 64) in;
            layout (push_constant) uniform P { uint rounds; } pc;
            layout (set = 0, binding = 0) buffer O { uint o[]; };
            void main() {
                uint x = gl_GlobalInvocationID.x;
                for (uint k = 0; k < pc.rounds; k++) { x = x * 1664525u + 1013904223u; }
                o[gl_GlobalInvocationID.x] = x;
            }
            """;
    /**
     * SLOW repeated {@code repeats} times. Nesting does not get past llvmpipe's loop limit: it still stops near 65,535
     * iterations in all, so keep rounds × repeats below that and make more work with more dispatches.
     */
    static final String SLOWER = SLOW.replace("uint rounds; }", "uint rounds; uint repeats; }")
            .replace("for (uint k", "for (uint r = 0; r < pc.repeats; r++) for (uint k");

    static int lcg(int x, int rounds) {
        for (int k = 0; k < rounds; k++) x = x * 1664525 + 1013904223;
        return x;
    }

    @Test
    void aRecordedSequenceIsReusedWithoutRecordingAgain() {
        try (Tensor t = mgr.tensor(new float[] {0, 10}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(ADD_ONE));
                Sequence s = mgr.sequence()) {
            s.record(new OpAlgoDispatch(algo)).record(new OpAlgoDispatch(algo));
            assertTrue(s.isRecording());
            for (int k = 0; k < 5; k++) {
                s.eval();
            }
            assertFalse(s.isRecording());
            assertFalse(s.isRunning());
            assertEquals(2, s.operations().size());
            assertArrayEquals(new float[] {10, 20}, t.toFloatArray());
        }
    }

    @Test
    void recordAfterEvalStartsANewRecording() {
        try (Tensor t = mgr.tensor(new float[] {0}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(ADD_ONE));
                Sequence s = mgr.sequence()) {
            s.record(new OpAlgoDispatch(algo)).record(new OpAlgoDispatch(algo)).eval();   // A, B
            assertEquals(2f, t.toFloatArray()[0]);
            s.record(new OpAlgoDispatch(algo)).eval();                                    // C alone
            assertEquals(3f, t.toFloatArray()[0]);
            assertEquals(1, s.operations().size());
            s.clear();
            assertEquals(0, s.operations().size());
            s.eval();                                                                    // nothing
            assertEquals(3f, t.toFloatArray()[0]);
            s.eval(new OpAlgoDispatch(algo), new OpAlgoDispatch(algo));
            assertEquals(5f, t.toFloatArray()[0]);
        }
    }

    @Test
    void asyncAwaitWithTimeouts() {
        int n = 4096;
        int rounds = 60_000;
        try (Tensor out = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(out), Shader.compile(SLOWER), Workgroup.covering(n, 64),
                        Constants.NONE, Constants.uints(rounds, 1));
                Sequence s = mgr.sequence()) {
            // grow the work until one evaluation takes 50 ms on this device, so a 1 ns wait surely times out: more
            // dispatches, not more iterations, since llvmpipe cuts a shader's loops short past ~65,535 iterations in
            // all (repeats = 2 came back as lcg(0, 65,532) whenever one dispatch took under 50 ms)
            int dispatches = 1;
            int repeats = 1;
            s.record(new OpAlgoDispatch(algo));
            while (true) {
                long t0 = System.nanoTime();
                s.eval();
                if (System.nanoTime() - t0 > 50_000_000L || dispatches >= 1 << 12) break;
                dispatches *= 2;
                s.clear();
                for (int k = 0; k < dispatches; k++) {
                    s.record(new OpAlgoDispatch(algo));
                }
            }
            s.evalAsync();
            assertTrue(s.isRunning());
            assertFalse(s.evalAwait(Duration.ofNanos(1)), "a 1 ns wait times out while the shader runs");
            assertTrue(s.isRunning());
            var e = assertThrows(IllegalStateException.class, s::evalAsync);
            assertTrue(e.getMessage().contains("still running: call evalAwait() first"), e.getMessage());
            e = assertThrows(IllegalStateException.class, () -> s.record(new OpAlgoDispatch(algo)));
            assertTrue(e.getMessage().contains("while it is running"), e.getMessage());
            assertTrue(s.evalAwait(Duration.ofSeconds(120)));
            assertFalse(s.isRunning());
            assertTrue(s.evalAwait(Duration.ofSeconds(1)), "awaiting an idle sequence returns at once");
            int[] o = out.toIntArray();
            for (int i = 0; i < n; i += 511) {
                assertEquals(lcg(i, rounds * repeats), o[i]);
            }
        }
    }

    @Test
    void everyWaitStrategyCompletes() {
        try (Tensor t = mgr.tensor(new float[] {0}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(ADD_ONE));
                Sequence s = mgr.sequence()) {
            s.record(new OpAlgoDispatch(algo));
            for (WaitStrategy w : WaitStrategy.values()) {
                s.setWaitStrategy(w).eval();
                assertEquals(w, s.waitStrategy());
            }
            assertEquals(3f, t.toFloatArray()[0]);
        }
    }

    @Test
    void aSequenceWaitsForAnotherOnTheGpu() {
        int n = 1024;
        int rounds = 20_000;
        try (Tensor a = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.STORAGE);
                Tensor b = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.HOST);
                Algorithm slow = mgr.algorithm(List.of(a), Shader.compile(SLOW), Workgroup.covering(n, 64),
                        Constants.NONE, Constants.uints(rounds));
                Sequence first = mgr.sequence(); Sequence second = mgr.sequence()) {
            first.record(new OpAlgoDispatch(slow));
            second.record(new OpCopy(a, b)).waitFor(first);
            first.evalAsync();
            second.evalAsync();
            second.evalAwait();
            first.evalAwait();
            int[] o = b.toIntArray();
            for (int i = 0; i < n; i += 97) {
                assertEquals(lcg(i, rounds), o[i]);
            }
            second.clearWaits().eval();   // no dependency left: still fine
            var e = assertThrows(IllegalArgumentException.class, () -> first.waitFor(first));
            assertEquals("a sequence cannot wait for itself", e.getMessage());
        }
    }

    /** Two queues let the wait matter: without it, the copy could run before the slow shader ends. */
    @Test
    @Tag("gpu")
    void timelineWaitAcrossTwoQueues() {
        DeviceProperties p = mgr.deviceProperties();
        int[] families = twoQueues(p);
        Assumptions.assumeTrue(families != null, "needs two compute queues; " + p.name() + " has one");
        try (Manager two = new Manager(0, families, List.of())) {
            int n = 1 << 16;
            int rounds = 60_000;
            try (Tensor a = two.tensor(DataType.UINT32, new long[] {n}, MemoryType.STORAGE);
                    Tensor b = two.tensor(DataType.UINT32, new long[] {n}, MemoryType.HOST);
                    Algorithm slow = two.algorithm(List.of(a), Shader.compile(SLOW), Workgroup.covering(n, 64),
                            Constants.NONE, Constants.uints(rounds));
                    Sequence first = two.sequence(0); Sequence second = two.sequence(1)) {
                first.record(new OpAlgoDispatch(slow));
                second.record(new OpCopy(a, b)).waitFor(first);
                first.evalAsync();
                second.evalAsync();
                second.evalAwait();
                first.evalAwait();
                int[] o = b.toIntArray();
                for (int i = 0; i < n; i += 4099) {
                    assertEquals(lcg(i, rounds), o[i]);
                }
            }
        }
    }

    static int[] twoQueues(DeviceProperties p) {
        int first = -1;
        for (DeviceProperties.QueueFamily f : p.queueFamilies()) {
            if (f.compute() && f.queueCount() >= 2) return new int[] {f.index(), f.index()};
            if (f.compute()) {
                if (first >= 0) return new int[] {first, f.index()};
                first = f.index();
            }
        }
        return null;
    }

    @Test
    void timestamps() {
        Assumptions.assumeTrue(mgr.deviceProperties().features().timestamps(), "device has no timestamps");
        try (Tensor t = mgr.tensor(new float[] {0});
                Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(ADD_ONE));
                Sequence s = mgr.sequence(0, 5)) {
            s.record(new OpSyncDevice(t)).record(new OpAlgoDispatch(algo)).record(new OpSyncLocal(t)).eval();
            long[] ts = s.getTimestamps();
            assertEquals(4, ts.length);
            for (int i = 1; i < ts.length; i++) {
                assertTrue(ts[i] >= ts[i - 1], "timestamps increase: " + java.util.Arrays.toString(ts));
            }
        }
        try (Sequence s = mgr.sequence()) {
            var e = assertThrows(IllegalStateException.class, s::getTimestamps);
            assertTrue(e.getMessage().contains("timestamps are not enabled"), e.getMessage());
        }
    }

    @Test
    void managerShortcutsAndNamedSequences() {
        try (Tensor a = mgr.tensor(new float[] {2, 3}); Tensor b = mgr.tensor(new float[] {4, 5});
                Tensor out = mgr.tensor(new float[2]); Algorithm algo = mgr.algorithm()) {
            mgr.eval(new OpSyncDevice(a, b), new OpMult(a, b, out, algo), new OpSyncLocal(out));
            assertArrayEquals(new float[] {8, 15}, out.toFloatArray());
            out.setData(new float[] {0, 0});
            mgr.evalAsync(new OpSyncDevice(out));
            mgr.evalAwait();
            assertTrue(mgr.evalAwait(Duration.ofSeconds(1)));
            Sequence named = mgr.sequence("train");
            assertSame(named, mgr.sequence("train"));
            assertNotSame(named, mgr.sequence("infer"));
            named.eval(new OpSyncLocal(out));
            assertArrayEquals(new float[] {0, 0}, out.toFloatArray());
        }
    }
}
