package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LifetimeTest {

    @Test
    void managerCloseFreesEverythingInOrder() {
        Manager m = new Manager();
        Tensor t = m.tensor(new float[] {1});
        Image img = m.image(DataType.FLOAT32, 2, 2, 1);
        Algorithm a = m.algorithm(List.of(t), Shader.compile(SequenceTest.ADD_ONE));
        Sequence s = m.sequence().record(new OpAlgoDispatch(a));
        s.evalAsync();   // still running when the Manager closes: it waits for the device first
        m.close();
        assertTrue(s.isClosed());
        assertTrue(a.isClosed());
        assertTrue(t.isClosed());
        assertTrue(img.isClosed());
        assertTrue(m.isClosed());
    }

    @Test
    void closingATensorWhileASequenceRunsWaitsForTheGpu() {
        try (Manager m = new Manager()) {
            Tensor out = m.tensor(DataType.UINT32, new long[] {4096}, MemoryType.HOST);
            Algorithm a = m.algorithm(List.of(out), Shader.compile(SequenceTest.SLOW), Workgroup.covering(4096, 64),
                    Constants.NONE, Constants.uints(60_000));
            Sequence s = m.sequence().record(new OpAlgoDispatch(a));
            s.evalAsync();
            out.close();      // must not free memory the GPU still writes
            assertTrue(out.isClosed());
            s.evalAwait();
            var e = assertThrows(IllegalStateException.class, s::evalAsync);
            assertTrue(e.getMessage().contains("which is closed"), e.getMessage());
        }
    }

    @Test
    void leaksAreReportedWithWhereTheyWereCreated() throws Exception {
        try (Manager m = new Manager()) {
            makeAndDropATensor(m);
            for (int k = 0; k < 100 && m.leaks().isEmpty(); k++) {
                System.gc();
                Thread.sleep(20);
            }
            assertEquals(1, m.leaks().size());
            String report = m.leaks().get(0);
            assertTrue(report.contains("float32[16] DEVICE was not closed before it became unreachable"), report);
            assertTrue(report.contains("LifetimeTest.makeAndDropATensor"), report);
        }
    }

    private static void makeAndDropATensor(Manager m) {
        m.tensor(new float[16]);
    }

    /** A real JVM that exits with a Manager and its objects open must exit cleanly. */
    @Test
    void jvmExitsCleanlyWithObjectsAlive() throws Exception {
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("java.class.path");
        File log = File.createTempFile("jk-exit", ".log");
        Process p = new ProcessBuilder(javaBin, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", cp, ExitWithOpenManager.class.getName())
                .redirectErrorStream(true).redirectOutput(log).start();
        boolean finished = p.waitFor(120, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
        }
        String out = java.nio.file.Files.readString(log.toPath());
        assertTrue(finished, "child JVM finished: " + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("exiting with an open Manager"), out);
        assertTrue(out.contains("was still open at JVM exit; closing it"), out);
    }

    /** The NVIDIA driver crashed when a device was destroyed on another thread than its creator's; now it never is. */
    @Test
    void aManagerClosesFromAnyThread() throws Exception {
        Manager m = new Manager();
        Tensor t = m.tensor(new float[] {1, 2});
        Sequence s = m.sequence();
        s.eval(new OpSyncDevice(t));
        Thread other = new Thread(() -> {
            s.close();
            m.close();
        });
        other.start();
        other.join(60_000);
        assertFalse(other.isAlive());
        assertTrue(m.isClosed());
        assertTrue(t.isClosed());
    }

    @Test
    void logLevels() {
        LogLevel before = Logging.level();
        try {
            Logging.setLevel(1);
            assertEquals(LogLevel.DEBUG, Logging.level());
            Logging.setLevel(LogLevel.ERROR);
            assertFalse(Logging.enabled(LogLevel.WARN));
            assertTrue(Logging.enabled(LogLevel.ERROR));
            assertEquals(LogLevel.TRACE, LogLevel.parse("0"));
            assertEquals(LogLevel.WARN, LogLevel.parse("warn"));
            var e = assertThrows(IllegalArgumentException.class, () -> LogLevel.parse("loud"));
            assertEquals("unknown log level 'loud': use TRACE, DEBUG, INFO, WARN, ERROR, OFF or 0-5", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> Logging.setLevel(9));
        } finally {
            Logging.setLevel(before);
        }
    }

    static final class ExitWithOpenManager {
        public static void main(String[] args) {
            Manager m = new Manager();
            Tensor t = m.tensor(new float[] {1, 2, 3});
            m.sequence().record(new OpSyncDevice(t)).evalAsync();
            System.out.println("exiting with an open Manager");
            System.out.flush();
        }
    }
}
