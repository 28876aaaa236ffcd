package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PipelineCacheTest {
    @Test
    void thePipelineCacheIsKeptOnDiskPerDevice(@TempDir Path dir) throws Exception {
        String before = System.getProperty("jkompute.cache.dir");
        System.setProperty("jkompute.cache.dir", dir.toString());
        try {
            String uuid;
            try (Manager m = new Manager(); Tensor t = m.tensor(new float[2])) {
                m.algorithm(List.of(t, t), Shader.compile(GpuTestBase.COPY_SHADER)).close();
                uuid = m.deviceProperties().deviceUuidHex();
            }
            Path f = dir.resolve("pipelines-" + uuid + ".bin");
            assertTrue(Files.size(f) > 0, "cache written to " + f);
            java.nio.file.attribute.FileTime old = java.nio.file.attribute.FileTime.fromMillis(0);
            Files.setLastModifiedTime(f, old);
            try (Manager m = new Manager()) {       // a second run starts from it
                assertEquals(uuid, m.deviceProperties().deviceUuidHex());
            }
            assertEquals(old, Files.getLastModifiedTime(f), "a Manager that made no new pipeline leaves the file alone");
            // real caches grow past LWJGL's 64 KiB thread stack (seen on NVIDIA): loading one must not fail
            byte[] header = Files.readAllBytes(f);
            byte[] big = java.util.Arrays.copyOf(header, header.length + (200 << 10));
            Files.write(f, big);
            try (Manager m = new Manager()) {
                assertEquals(uuid, m.deviceProperties().deviceUuidHex());
            }
            System.setProperty("jkompute.cache.dir", "none");
            Files.delete(f);
            try (Manager m = new Manager()) {
                assertNotNull(m.deviceProperties());
            }
            assertFalse(Files.exists(f), "no cache written when turned off");
        } finally {
            if (before == null) System.clearProperty("jkompute.cache.dir"); else System.setProperty("jkompute.cache.dir", before);
        }
    }
}
