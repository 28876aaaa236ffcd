package io.jkompute.graph.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.DataType;
import io.jkompute.graph.DeviceBuffer;
import io.jkompute.graph.DeviceMemoryProvider;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphTensor;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The bytes of a CUDA buffer's IPC handle and their checks; runs without a GPU. */
class CudaIpcHandleTest {
    private static byte[] handle(int fill) {
        byte[] h = new byte[64];
        for (int i = 0; i < h.length; i++) h[i] = (byte) (fill + i);
        return h;
    }

    @Test
    void encodesDeviceHandleAndSizeAndDecodesThemBack() {
        UUID dev = new UUID(0x0123456789abcdefL, 0xfedcba9876543210L);
        byte[] bytes = new CudaIpcHandle(dev, handle(3), 64L << 20).encode();
        assertEquals(1 + 16 + 64 + 8, bytes.length);
        assertEquals(CudaIpcHandle.VERSION, bytes[0]);
        assertEquals((byte) 0x01, bytes[1], "UUID big-endian first");
        CudaIpcHandle back = CudaIpcHandle.decode(bytes);
        assertEquals(dev, back.device());
        assertArrayEquals(handle(3), back.handle());
        assertEquals(64L << 20, back.byteSize());
        assertEquals(new CudaIpcHandle(dev, handle(3), 64L << 20), back);
    }

    @Test
    void rejectsEveryMalformedHandleWithOneExceptionType() {
        byte[] good = new CudaIpcHandle(UUID.randomUUID(), handle(0), 4096).encode();
        assertThrows(IllegalArgumentException.class, () -> CudaIpcHandle.decode(null));
        assertThrows(IllegalArgumentException.class, () -> CudaIpcHandle.decode(new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> CudaIpcHandle.decode(java.util.Arrays.copyOf(good, good.length - 1)));
        assertThrows(IllegalArgumentException.class, () -> CudaIpcHandle.decode(java.util.Arrays.copyOf(good, good.length + 1)));
        byte[] version = good.clone();
        version[0] = 2;
        var e = assertThrows(IllegalArgumentException.class, () -> CudaIpcHandle.decode(version));
        assertTrue(e.getMessage().contains("version 2"), e.getMessage());
        for (long size : new long[] {0, -1, Long.MIN_VALUE}) {
            byte[] bad = good.clone();
            java.nio.ByteBuffer.wrap(bad).putLong(bad.length - 8, size);
            var s = assertThrows(IllegalArgumentException.class, () -> CudaIpcHandle.decode(bad));
            assertTrue(s.getMessage().contains("positive"), s.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new CudaIpcHandle(UUID.randomUUID(), new byte[63], 1));
    }

    @Test
    void memoryThatCannotBeSharedSaysSoByDefault() {
        DeviceBuffer plain = new DeviceBuffer() {
            public long byteSize() {
                return 16;
            }

            public GraphTensor tensor(DataType type, long[] shape, AutoCloseable owner) {
                throw new UnsupportedOperationException();
            }

            public void close() {}
        };
        DeviceMemoryProvider provider = new DeviceMemoryProvider() {
            public String name() {
                return "Plain";
            }

            public boolean serves(Graph graph) {
                return true;
            }

            public DeviceBuffer allocate(Graph graph, long bytes) {
                return plain;
            }
        };
        assertTrue(plain.ipcHandle().isEmpty());
        try (Graph g = Graph.create()) {
            assertTrue(provider.ipcDevice(g).isEmpty());
            var e = assertThrows(UnsupportedOperationException.class, () -> provider.openIpcImports(g));
            assertEquals("Plain device memory cannot be shared between processes", e.getMessage());
        }
    }
}
