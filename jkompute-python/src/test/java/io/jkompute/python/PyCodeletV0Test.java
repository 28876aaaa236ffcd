package io.jkompute.python;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.Manager;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphExecutionException;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.JavaCodelet;
import io.jkompute.graph.StopReason;
import io.jkompute.graph.std.BlockMemoryPool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GXF's Python test codelets and the gxf package, run by the embedded CPython inside real graphs. */
class PyCodeletV0Test {
    static final Path APPS = TestPaths.APPS;
    static final Path GRAPHS = TestPaths.GRAPHS;

    @Test
    void gxfPythonPingRunsUnchanged() {
        try (Graph g = Graph.load(APPS.resolve("python-ping.yaml"))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            assertEquals(10, g.entity("tx").tickCount());
            assertEquals(10, g.entity("rx").tickCount());
            assertEquals(10, g.component("tx/signal", io.jkompute.graph.Transmitter.class).publishedCount());
            assertEquals(1, PythonRuntime.openContexts(), "one context for the graph's three Python codelets");
        }
        assertEquals(0, PythonRuntime.openContexts(), "closing the graph closed its Python context");
    }

    @Test
    void messagesPassThroughPythonInOrderAndEveryHandleComesBack() {
        int before = io.jkompute.python.internal.Interpreter.liveHandles();
        try (Graph g = Graph.load(GRAPHS.resolve("message-path.yaml"))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            assertEquals(50, g.entity("source").tickCount());
            assertEquals(50, g.entity("relay").tickCount());
            AcqtimeRecorder rec = (AcqtimeRecorder) g.component("sink/recorder", JavaCodelet.class).instance();
            // every message once, in order, with the acqtime the source gave (int() of the odd ones' n + 0.25)
            assertEquals(java.util.stream.LongStream.range(0, 50).boxed().toList(), rec.seen);
        }
        // the relay's three held messages, and every message and component handle, went back with the graph
        assertEquals(before, io.jkompute.python.internal.Interpreter.liveHandles());
    }

    @Test
    void pingRxRaisesWithFileAndLineWhenItGetsNoMessage() throws Exception {
        try (Graph g = Graph.load(GRAPHS.resolve("empty-rx.yaml"))) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            int line = lineOf(APPS.resolve("python/PingRx.py"), "raise Exception(\"Didn't get message\")");
            assertEquals("codelet 'rx/py_ping_rx' (PyCodeletV0) failed in tick(): PythonCodeletException: PingRx.py:"
                    + line + ": Exception: Didn't get message", e.getMessage());
            PythonCodeletException py = assertInstanceOf(PythonCodeletException.class, e.getCause());
            assertEquals("PingRx.py", py.file());
            assertEquals(line, py.line());
            assertEquals(1, g.entity("rx").tickCount());
        }
    }

    @Test
    void stepCountFailsInStopWithBothCounts() throws Exception {
        try (Graph g = Graph.load(GRAPHS.resolve("step-count-mismatch.yaml"))) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            int line = lineOf(APPS.resolve("python/StepCount.py"), "raise Exception(");
            assertEquals("codelet 'counter/step_count' (PyCodeletV0) failed in stop(): PythonCodeletException: "
                    + "StepCount.py:" + line + ": Exception: Codelet didn't tick expected number of times!\n"
                    + "Expected tick count = 5\nCodelet tick count = 3\n", e.getMessage());
            assertEquals(3, g.entity("counter").tickCount());
        }
    }

    @Test
    void hostTensorsAreReadAndWrittenThroughMemoryview() {
        int before = io.jkompute.python.internal.Interpreter.liveHandles();
        try (Graph g = Graph.load(GRAPHS.resolve("tensors.yaml"))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            assertEquals(3, g.entity("doubler").tickCount());
            TensorRecorder rec = (TensorRecorder) g.component("sink/recorder", JavaCodelet.class).instance();
            assertEquals(List.of(
                    "100 [2, 3][1.0, 1.5, 2.0, 2.5, 3.0, 3.5] int32[6][0, 1, 2, 3, 4, 5]",
                    "101 [2, 3][2.0, 2.5, 3.0, 3.5, 4.0, 4.5] int32[6][2, 3, 4, 5, 6, 7]",
                    "102 [2, 3][3.0, 3.5, 4.0, 4.5, 5.0, 5.5] int32[6][4, 5, 6, 7, 8, 9]"), rec.seen);
        }
        // the message the doubler's kept Tensor held, and every other handle, went back with the graph
        assertEquals(before, io.jkompute.python.internal.Interpreter.liveHandles());
    }

    @Test
    void numpyArraysShareTensorMemoryAndKeepTheirMessage() {
        try (Graph g = Graph.load(GRAPHS.resolve("zero-copy.yaml"))) {
            assertEquals(StopReason.COMPLETED, g.run().reason());
            assertEquals(4, g.entity("rx").tickCount());
            BlockMemoryPool pool = g.component("pool/host", BlockMemoryPool.class);
            assertEquals(2, pool.freeBlocks(), "the four arrays the receiver keeps hold four of the six blocks");
        }
    }

    @Test
    void ctypesCallbacksOnNewSchedulerThreadsDoNotWaitForTheirOwnGil() {
        // CPython 3.12: deleting an ended thread's state from another thread unbound that thread's own state, and
        // the next PyGILState_Ensure there (a ctypes callback) waited forever for the GIL it held
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> {
            for (int i = 0; i < 4; i++) {
                try (Graph g = Graph.load(GRAPHS.resolve("capsule-drop.yaml"))) {
                    g.run();
                    assertEquals(3, g.entity("e").tickCount(), "run " + i);
                }
            }
        });
    }

    @Test
    void aFailedAllocationNamesTheReshapeLine() throws Exception {
        try (Graph g = Graph.loader().file(GRAPHS.resolve("tensors.yaml")).param("pool/host/block_size=16").load()) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            assertEquals("codelet 'tx/py' (PyCodeletV0) failed in tick(): PythonCodeletException: TensorCodelets.py:"
                    + lineOf(GRAPHS.resolve("TensorCodelets.py"), "t.reshape(TensorDescription(") + ": RuntimeError: pool/host: request of 24 bytes exceeds block_size 16",
                    e.getMessage());
        }
    }

    @Test
    void codeletAdapterGettersGiveTheRunsFigures() {
        try (Graph g = Graph.load(GRAPHS.resolve("introspect.yaml"))) {
            g.run();
            PyCodeletV0 py = g.component("source/introspect", PyCodeletV0.class);
            FactsRecorder rec = (FactsRecorder) g.component("sink/recorder", JavaCodelet.class).instance();
            String ids = ", " + py.eid() + ", " + py.cid() + ", ";
            // count, first tick, execution timestamp, delta ns, eid, cid, clock: ticks at 0, 1000, 2000 ns
            assertEquals(List.of("7 [1, 1, 0, 0" + ids + "0]", "7 [2, 0, 1000, 1000" + ids + "1000]",
                    "7 [3, 0, 2000, 1000" + ids + "2000]"), rec.seen);
        }
    }

    @Test
    void deviceTensorsAreCopiedToTheHostOnRequest() {
        Assumptions.assumeTrue(vulkanAvailable(), "no Vulkan device (install mesa-vulkan-drivers for lavapipe)");
        try (Graph g = Graph.load(GRAPHS.resolve("devices.yaml"))) {
            g.run();
            assertEquals(3, g.entity("source").tickCount());
            assertEquals(3, g.entity("check").tickCount(), "DeviceCheck.py checked every tick's four tensors");
            assertEquals(4, g.component("source/device_pool", BlockMemoryPool.class).freeBlocks());
        }
    }

    @Test
    void aMissingClassIsALoadErrorNamingTheFile(@TempDir Path dir) throws Exception {
        Path py = Files.writeString(dir.resolve("Codelets.py"), "class Other:\n    pass\n");
        GraphLoadException e = loadError(dir, "Missing", "Codelets.py");
        assertEquals(dir.resolve("app.yaml") + ":4: PyCodeletV0 'e/py': AttributeError: " + py
                + " defines no class 'Missing'", e.getMessage());
    }

    @Test
    void aSyntaxErrorIsALoadErrorWithFileAndLine(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("Broken.py"), "from gxf.python_codelet import CodeletAdapter\n\n"
                + "class Broken(CodeletAdapter):\n    def tick(self)\n        pass\n");
        GraphLoadException e = loadError(dir, "Broken", "Broken.py");
        assertEquals(dir.resolve("app.yaml") + ":4: PyCodeletV0 'e/py': Broken.py:4: SyntaxError: expected ':'",
                e.getMessage());
    }

    @Test
    void aBadHandleNamesTheLineThatAskedForIt(@TempDir Path dir) throws Exception {
        Path yaml = Files.writeString(dir.resolve("app.yaml"), """
                name: rx
                components:
                - name: py
                  type: PyCodeletV0
                  parameters:
                    codelet_name: PingRx
                    codelet_file: %s
                    codelet_params: { receiver: nope, clock: scheduler/clock }
                """.formatted(APPS.resolve("python/PingRx.py").toAbsolutePath()));
        try (Graph g = Graph.load(yaml)) {
            GraphExecutionException e = assertThrows(GraphExecutionException.class, g::run);
            assertEquals("codelet 'rx/py' (PyCodeletV0) failed in start(): PythonCodeletException: PingRx.py:"
                    + lineOf(APPS.resolve("python/PingRx.py"), "self.rx = Receiver.get(") + ": "
                    + "ValueError: entity 'rx' has no component 'nope'; it has [py]", e.getMessage());
        }
    }

    /** Loads a one-codelet graph written to dir/app.yaml and returns the load error. */
    private static GraphLoadException loadError(Path dir, String className, String file) throws Exception {
        Path yaml = Files.writeString(dir.resolve("app.yaml"), """
                name: e
                components:
                - name: py
                  type: nvidia::gxf::PyCodeletV0
                  parameters: { codelet_name: %s, codelet_file: %s }
                """.formatted(className, file));
        return assertThrows(GraphLoadException.class, () -> Graph.load(yaml).close());
    }

    private static boolean vulkanAvailable() {
        try {
            return !Manager.listDevices().isEmpty();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    private static int lineOf(Path file, String text) throws Exception {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError(text + " not in " + file);
    }
}
