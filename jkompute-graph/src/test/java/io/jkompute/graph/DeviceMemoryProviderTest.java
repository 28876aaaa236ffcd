package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.DataType;
import io.jkompute.graph.std.BlockMemoryPool;
import io.jkompute.graph.std.StandardExtension;
import io.jkompute.graph.std.UnboundedAllocator;
import io.jkompute.graph.yaml.YamlGraphReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Device memory from an extension (the SPI jkompute-graph-cuda fills with CUDA memory), here with a provider whose
 * "device" buffers are host memory so the plumbing runs anywhere: pools and UnboundedAllocator without a VulkanDevice
 * take its memory, GraphTensor.allocate makes its tensors, blocks return and buffers are freed, refusals are one line.
 */
class DeviceMemoryProviderTest {
    @TempDir
    Path dir;

    /** A device tensor over host memory: what a provider's tensors must do, without a GPU. */
    static final class BufferTensor implements GraphTensor {
        final MemorySegment data;
        final DataType type;
        final long[] shape;
        final AutoCloseable owner;

        BufferTensor(MemorySegment data, DataType type, long[] shape, AutoCloseable owner) {
            this.data = data;
            this.type = type;
            this.shape = shape.clone();
            this.owner = owner;
        }

        @Override
        public long[] shape() {
            return shape.clone();
        }

        @Override
        public DataType dataType() {
            return type;
        }

        @Override
        public long[] strides() {
            return GraphTensor.denseStrides(shape, type.byteSize());
        }

        @Override
        public StorageType storage() {
            return StorageType.DEVICE;
        }

        @Override
        public MemorySegment toHost(Arena arena) {
            return arena.allocate(byteSize(), 8).copyFrom(data.asSlice(0, byteSize()));
        }

        @Override
        public void copyFromHost(MemorySegment bytes) {
            MemorySegment.copy(bytes, 0, data, 0, byteSize());
        }

        @Override
        public void close() {
            try {
                owner.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    static final class HostBackedMemory implements DeviceMemoryProvider {
        final AtomicInteger allocated = new AtomicInteger();
        final AtomicInteger freed = new AtomicInteger();
        volatile boolean serves = true;
        volatile String refusal;

        @Override
        public String name() {
            return "test memory";
        }

        @Override
        public boolean serves(Graph graph) {
            if (refusal != null) {
                throw new IllegalStateException(refusal);
            }
            return serves;
        }

        @Override
        public DeviceBuffer allocate(Graph graph, long bytes) {
            Arena arena = Arena.ofShared();
            MemorySegment seg = arena.allocate(bytes, 64);
            allocated.incrementAndGet();
            return new DeviceBuffer() {
                @Override
                public long byteSize() {
                    return bytes;
                }

                @Override
                public GraphTensor tensor(DataType type, long[] shape, AutoCloseable owner) {
                    return new BufferTensor(seg, type, shape, owner);
                }

                @Override
                public void close() {
                    arena.close();
                    freed.incrementAndGet();
                }
            };
        }
    }

    private final HostBackedMemory memory = new HostBackedMemory();

    private Graph load(String yaml) throws Exception {
        // only the standard set and this provider: a CUDA provider discovered on the class path (jkompute-graph-cuda,
        // when every module's tests share one JVM) would otherwise serve device storage first
        ComponentRegistry registry = new ComponentRegistry().add(new StandardExtension()).add(new GraphExtension() {
            @Override
            public String name() {
                return "TestDeviceMemory";
            }

            @Override
            public void register(ComponentRegistry r) {
                r.registerDeviceMemory(memory);
            }
        });
        Graph g = Graph.create(registry);
        try {
            new YamlGraphReader(g).read(Files.writeString(dir.resolve("app.yaml"), yaml));
            g.activate();
            return g;
        } catch (RuntimeException e) {
            g.close();
            throw e;
        }
    }

    private static final String POOLS = """
            name: g
            components:
            - name: pool
              type: nvidia::gxf::BlockMemoryPool
              parameters: { storage_type: 1, block_size: 256, num_blocks: 3 }
            - name: unbounded
              type: nvidia::gxf::UnboundedAllocator
            """;

    @Test
    void poolsWithoutAVulkanDeviceTakeTheProvidersMemory() throws Exception {
        try (Graph g = load(POOLS)) {
            assertEquals(3, memory.allocated.get(), "a BlockMemoryPool makes its blocks up front");
            BlockMemoryPool pool = g.component("g/pool", BlockMemoryPool.class);
            GraphTensor t = GraphTensor.allocate(pool, StorageType.DEVICE, DataType.FLOAT32, 4, 8);
            BufferTensor b = assertInstanceOf(BufferTensor.class, t);
            assertArrayEquals(new long[] {4, 8}, b.shape());
            assertEquals(2, pool.freeBlocks());
            float[] values = new float[32];
            for (int i = 0; i < values.length; i++) {
                values[i] = i * 1.5f;
            }
            t.copyFromHost(MemorySegment.ofArray(values));
            try (Arena arena = Arena.ofConfined()) {
                assertArrayEquals(values, t.toHost(arena).toArray(ValueLayout.JAVA_FLOAT));
            }
            t.close();
            t.close();
            assertEquals(3, pool.freeBlocks(), "closing returns the block once");
            IllegalArgumentException vulkanOnly = assertThrows(IllegalArgumentException.class,
                    () -> DeviceTensor.allocate(pool, DataType.FLOAT32, 4));
            assertTrue(vulkanOnly.getMessage().contains("is not Vulkan memory (e.g. CUDA); allocate with "
                    + "GraphTensor.allocate"), vulkanOnly.getMessage());
            assertEquals(3, pool.freeBlocks(), "the refused request gave its block back");

            UnboundedAllocator unbounded = g.component("g/unbounded", UnboundedAllocator.class);
            GraphTensor u = GraphTensor.allocate(unbounded, StorageType.DEVICE, DataType.INT32, 10);
            assertEquals(StorageType.DEVICE, u.storage());
            assertEquals(4, memory.allocated.get(), "one buffer per unbounded request");
            assertEquals(1, unbounded.liveBlocks());
            u.close();
            assertEquals(1, memory.freed.get(), "an unbounded block is freed when closed");
            assertEquals(0, unbounded.liveBlocks());
            try (GraphTensor h = GraphTensor.allocate(unbounded, StorageType.HOST, DataType.INT32, 10)) {
                assertSame(HostTensor.class, h.getClass(), "host storage stays host memory");
            }
        }
        assertEquals(4, memory.freed.get(), "closing the graph frees the pool's buffers");
    }

    @Test
    void withoutAServingProviderDeviceStorageIsRefused() throws Exception {
        memory.serves = false;
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> load(POOLS).close());
        assertTrue(e.getMessage().contains("storage_type 1 (device) needs parameter 'device', a handle to a "
                + "VulkanDevice component, or CUDA device memory"), e.getMessage());
        try (Graph g = load("""
                name: g
                components:
                - name: unbounded
                  type: nvidia::gxf::UnboundedAllocator
                """)) {
            UnboundedAllocator u = g.component("g/unbounded", UnboundedAllocator.class);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> GraphTensor.allocate(u, StorageType.DEVICE, DataType.FLOAT32, 4));
            assertTrue(refused.getMessage().contains("has no device memory here"), refused.getMessage());
            assertEquals(0, u.liveBlocks());
        }
    }

    @Test
    void aProviderThatCannotRunStopsLoadingWithOneLine() {
        memory.refusal = "the app's GPUDevice needs CUDA, which is not usable on this machine: no driver";
        GraphLoadException e = assertThrows(GraphLoadException.class, () -> load(POOLS).close());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains("app.yaml:"), "names the file: " + e.getMessage());
        assertTrue(e.getMessage().endsWith("BlockMemoryPool 'g/pool': the app's GPUDevice needs CUDA, which is not "
                + "usable on this machine: no driver"), e.getMessage());
        assertEquals(0, memory.allocated.get());
    }
}
