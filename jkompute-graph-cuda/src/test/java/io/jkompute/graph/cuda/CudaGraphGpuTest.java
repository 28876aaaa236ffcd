package io.jkompute.graph.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jkompute.DataType;
import io.jkompute.cuda.Cuda;
import io.jkompute.cuda.CudaModule;
import io.jkompute.cuda.DType;
import io.jkompute.cuda.Dim3;
import io.jkompute.cuda.GpuArray;
import io.jkompute.cuda.Stream;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.JavaCodelet;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import io.jkompute.graph.StorageType;
import io.jkompute.graph.std.BlockMemoryPool;
import io.jkompute.graph.std.UnboundedAllocator;
import io.jkompute.graph.std.VerifyEqual;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** GXF's CUDA extension on a real CUDA device: stream pools, CUDA pool memory, CudaStreamSync, whole apps. */
@Tag("gpu")
class CudaGraphGpuTest {
    @TempDir
    Path dir;

    @BeforeEach
    void requireCuda() {
        String why = Cuda.unavailableReason();
        assumeTrue(why == null, () -> "needs a CUDA driver and device (run on the GPU host): " + why);
    }

    private Graph load(String yaml) {
        return Graph.loader().file(Apps.write(dir, "app.yaml", yaml)).load();
    }

    private static final String GPU = """
            ---
            name: GPU_0
            components:
            - { name: GPU_0, type: nvidia::gxf::GPUDevice, parameters: { dev_id: 0 } }
            """;

    @Test
    void streamPoolHandsOutStreamsUpToMaxSizeThenRefuses() {
        try (Graph g = load("""
                name: g
                components:
                - name: pool
                  type: nvidia::gxf::CudaStreamPool
                  parameters: { stream_flags: 1, stream_priority: 0, reserved_size: 1, max_size: 3 }
                """ + GPU)) {
            CudaStreamPool pool = g.component("g/pool", CudaStreamPool.class);
            assertEquals(1, pool.reservedStreams(), "reserved_size streams made at start");
            Set<Long> handles = new HashSet<>();
            CudaStreamId first = pool.allocateStream();
            CudaStreamId second = pool.allocateStream();
            CudaStreamId third = pool.allocateStream();
            for (CudaStreamId id : List.of(first, second, third)) {
                assertNotEquals(0, id.handle(), "a real stream, not the legacy default one");
                assertEquals(id.handle(), id.stream().handle());
                assertSame(id, CudaStreamId.forCid(id.cid()));
                handles.add(id.handle());
            }
            assertEquals(3, handles.size(), "three distinct streams");
            assertEquals(3, pool.allocatedStreams());
            assertTrue(!pool.isAvailable(1) && pool.isAvailable(0));
            IllegalStateException full = assertThrows(IllegalStateException.class, pool::allocateStream);
            assertTrue(full.getMessage().contains("g/pool reached its capacity (max_size 3): could not allocate more "
                    + "CUDA streams"), full.getMessage());
            pool.releaseStream(second);
            assertThrows(IllegalArgumentException.class, () -> pool.releaseStream(second), "released twice");
            CudaStreamId again = pool.allocateStream();
            assertSame(second, again, "a released stream is reused");
            // the streams run work: a memset queued on each finishes
            try (GpuArray a = GpuArray.zeros(DType.FLOAT32, 1 << 20); Arena arena = Arena.ofConfined()) {
                MemorySegment zeros = arena.allocate(4L << 20, 8);
                for (CudaStreamId id : List.of(first, again, third)) {
                    a.set(zeros, id.stream());
                    id.stream().synchronize();
                    assertTrue(id.stream().query());
                }
            }
        }
        // the pool destroyed its streams when the graph closed; their ids are forgotten
        assertEquals(null, CudaStreamId.forCid(1_000_000_000L));
    }

    @Test
    void maxSizeBelowReservedSizeIsRaisedAndPriorityIsHonoured() {
        try (Graph g = load("""
                name: g
                components:
                - name: pool
                  type: nvidia::gxf::CudaStreamPool
                  parameters: { stream_flags: 0, stream_priority: -1, reserved_size: 3, max_size: 2, dev_id: 0 }
                """)) {
            CudaStreamPool pool = g.component("g/pool", CudaStreamPool.class);
            assertEquals(3, pool.maxSize(), "raised to reserved_size, as GXF does");
            assertEquals(3, pool.reservedStreams());
            for (int i = 0; i < 3; i++) {
                pool.allocateStream().stream().synchronize();
            }
            assertThrows(IllegalStateException.class, pool::allocateStream);
        }
    }

    @Test
    void deviceBlockMemoryPoolHandsOutCudaMemory() {
        try (Graph g = load("""
                name: g
                components:
                - name: pool
                  type: nvidia::gxf::BlockMemoryPool
                  parameters: { storage_type: 1, block_size: 8192, num_blocks: 2 }
                """ + GPU); CudaModule module = TestKernels.load()) {
            BlockMemoryPool pool = g.component("g/pool", BlockMemoryPool.class);
            GraphTensor t = GraphTensor.allocate(pool, StorageType.DEVICE, DataType.FLOAT32, 32, 64);
            CudaDeviceTensor c = assertInstanceOf(CudaDeviceTensor.class, t);
            assertEquals(StorageType.DEVICE, c.storage());
            assertEquals(DType.FLOAT32, c.dtype());
            assertEquals(List.of(32L, 64L), List.of(c.shape()[0], c.shape()[1]));
            assertEquals(List.of(256L, 4L), List.of(c.strides()[0], c.strides()[1]));
            assertEquals(c.pointer(), c.array().ptr());
            assertEquals(1, pool.freeBlocks());
            // a kernel writes the memory through its device pointer; the host reads what it wrote
            int n = 32 * 64;
            try (Stream s = Stream.create()) {
                module.kernel("spin_fill").launch(s, Dim3.blocksFor(n, 256), Dim3.of(256), 0, c.pointer(), 5f, n, 0L);
                c.setStream(s);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment host = c.toHost(arena);
                    for (int i = 0; i < n; i++) {
                        assertEquals(5f + i, host.getAtIndex(ValueLayout.JAVA_FLOAT, i), "element " + i);
                    }
                }
                // written from the host, read by the GPU: the scale kernel doubles and adds one
                float[] x = new float[n];
                for (int i = 0; i < n; i++) {
                    x[i] = i * 0.5f;
                }
                c.copyFromHost(MemorySegment.ofArray(x));
                try (GpuArray y = GpuArray.empty(DType.FLOAT32, n)) {
                    module.kernel("scale").launch(s, Dim3.blocksFor(n, 256), Dim3.of(256), 0, c.array(), y, n);
                    s.synchronize();
                    float[] out = y.toFloatArray();
                    for (int i = 0; i < n; i++) {
                        assertEquals(2 * x[i] + 1, out[i]);
                    }
                }
                c.setStream(null);
            }
            IllegalArgumentException notVulkan = assertThrows(IllegalArgumentException.class,
                    () -> DeviceTensor.allocate(pool, DataType.FLOAT32, 4), "CUDA blocks are not Vulkan tensors");
            assertTrue(notVulkan.getMessage().contains("allocate with GraphTensor.allocate"), notVulkan.getMessage());
            assertEquals(1, pool.freeBlocks(), "the refused request gave its block back");
            GraphTensor second = GraphTensor.allocate(pool, StorageType.DEVICE, DataType.UINT8, 8192);
            assertThrows(IllegalStateException.class,
                    () -> GraphTensor.allocate(pool, StorageType.DEVICE, DataType.UINT8, 1), "both blocks out");
            t.close();
            second.close();
            assertEquals(2, pool.freeBlocks(), "closing returns the blocks");
            assertThrows(IllegalArgumentException.class,
                    () -> GraphTensor.allocate(pool, StorageType.DEVICE, DataType.UINT8, 8193), "larger than a block");
        }
    }

    @Test
    void unboundedAllocatorAllocatesCudaMemoryPerRequest() {
        try (Graph g = load("""
                name: g
                components:
                - name: alloc
                  type: nvidia::gxf::UnboundedAllocator
                """)) {
            UnboundedAllocator a = g.component("g/alloc", UnboundedAllocator.class);
            float[] values = {1, 2, 3, 4, 5, 6};
            try (CudaDeviceTensor t = CudaDeviceTensor.allocate(a, DataType.FLOAT32, 2, 3)) {
                assertEquals(1, a.liveBlocks());
                t.copyFromHost(MemorySegment.ofArray(values));
                float[] back = t.array().toFloatArray();
                assertEquals(List.of(1f, 2f, 3f, 4f, 5f, 6f), List.of(back[0], back[1], back[2], back[3], back[4], back[5]));
            }
            assertEquals(0, a.liveBlocks());
            try (GraphTensor h = GraphTensor.allocate(a, StorageType.SYSTEM, DataType.FLOAT32, 4)) {
                assertEquals(StorageType.SYSTEM, h.storage(), "host storage types stay host memory");
            }
        }
    }

    @Test
    void cudaStreamSyncWaitsForEveryStreamOfAMessage() throws Exception {
        Path yaml = Apps.GRAPHS.resolve("stream-sync.yaml");
        try (Graph g = Graph.loader().file(yaml).load()) {
            RunResult r = g.run();
            assertTrue(r.reason() == StopReason.COMPLETED || r.reason() == StopReason.DEADLOCK, r.toString());
            StreamCheck check = (StreamCheck) g.component("check/check", JavaCodelet.class).instance();
            assertEquals(20, check.messages);
            assertEquals(0, check.unfinished, "CudaStreamSync waited for every stream");
            assertEquals(20, check.correct, "every tensor held its frame's values");
            assertEquals(20, g.component("sync/sync", CudaStreamSync.class).synchronizedStreams());
            assertEquals(4, g.component("producer/pool", BlockMemoryPool.class).freeBlocks());
        }
        // the control: without CudaStreamSync, messages arrive while their kernels still run
        String direct = Files.readString(yaml)
                .replace("source: producer/out, target: sync/rx", "source: producer/out, target: check/in")
                .replace("- type: nvidia::gxf::Connection\n  parameters: { source: sync/tx, target: check/in }\n", "");
        try (Graph g = Graph.loader().file(Apps.write(dir, "direct.yaml", direct)).load()) {
            g.run();
            StreamCheck check = (StreamCheck) g.component("check/check", JavaCodelet.class).instance();
            assertEquals(20, check.messages);
            assertTrue(check.unfinished > 0, "the spin kernels are still running on arrival without the sync");
        }
    }

    /** The shipped app as it is (greedy), and on 4 worker threads (the same app with a MultiThreadScheduler). */
    @ParameterizedTest
    @ValueSource(strings = {"greedy", "multithread"})
    void cudaPipelineAppRunsUnchanged(String scheduler) throws Exception {
        Path app = Apps.APPS.resolve("cuda-pipeline.yaml");
        Path copy = null;
        if (scheduler.equals("multithread")) {
            String text = Files.readString(app);
            String greedy = "type: nvidia::gxf::GreedyScheduler\n  parameters: { clock: clock, max_duration_ms: 120000 }";
            assertTrue(text.contains(greedy));
            // beside the original: the codelet files are found relative to the app file
            copy = Apps.write(app.getParent(), ".cuda-pipeline-multithread.yaml", text.replace(greedy,
                    "type: nvidia::gxf::MultiThreadScheduler\n  parameters: { clock: clock, max_duration_ms: 120000, "
                            + "worker_thread_number: 4, stop_on_deadlock: true }"));
            app = copy;
        }
        try (Graph g = Graph.loader().file(app).load()) {
            RunResult r = g.run();
            assertTrue(r.reason() == StopReason.COMPLETED || r.reason() == StopReason.DEADLOCK, r.toString());
            VerifyEqual v = (VerifyEqual) g.component("verify/equal", JavaCodelet.class).instance();
            assertEquals(200, v.verified(), "every frame compared equal to the CPU reference");
            assertEquals(200, g.entity("kernel").tickCount());
            for (String pool : List.of("source/device_pool", "kernel/result_pool", "source/host_pool")) {
                assertEquals(8, g.component(pool, BlockMemoryPool.class).freeBlocks(), pool);
            }
            assertEquals(0, g.component("kernel/stream_pool", CudaStreamPool.class).allocatedStreams(),
                    "the codelet released its stream");
        } finally {
            if (copy != null) {
                Files.deleteIfExists(copy);
            }
        }
    }

    @Test
    void readmeExampleRuns() {
        try (Graph g = load(Apps.readmeYaml())) {
            RunResult r = g.run();
            assertTrue(r.reason() == StopReason.COMPLETED || r.reason() == StopReason.DEADLOCK, r.toString());
            VerifyEqual v = (VerifyEqual) g.component("verify/equal", JavaCodelet.class).instance();
            assertEquals(100, v.verified());
        }
    }

    @Test
    void poolNamingAVulkanDeviceKeepsVulkanMemory() {
        boolean vulkan;
        try {
            vulkan = !io.jkompute.Manager.listDevices().isEmpty();
        } catch (RuntimeException | LinkageError e) {
            vulkan = false;
        }
        assumeTrue(vulkan, "no Vulkan device");
        try (Graph g = load("""
                name: g
                components:
                - { name: device, type: VulkanDevice, parameters: { device_index: 0, export_memory: true } }
                - name: pool
                  type: nvidia::gxf::BlockMemoryPool
                  parameters: { storage_type: 1, block_size: 4096, num_blocks: 1, device: device }
                """ + GPU)) {
            BlockMemoryPool pool = g.component("g/pool", BlockMemoryPool.class);
            try (GraphTensor t = GraphTensor.allocate(pool, StorageType.DEVICE, DataType.FLOAT32, 16)) {
                DeviceTensor d = assertInstanceOf(DeviceTensor.class, t, "a pool naming a VulkanDevice holds Vulkan tensors");
                assertThrows(IllegalArgumentException.class, () -> CudaDeviceTensor.of(t));
                float[] values = new float[16];
                for (int i = 0; i < 16; i++) {
                    values[i] = 3 * i - 7;
                }
                d.upload(MemorySegment.ofArray(values));
                // CUDA reads the Vulkan memory in place, after the upload
                try (CudaDeviceTensor c = CudaDeviceTensor.fromVulkan(d)) {
                    assertEquals(DType.FLOAT32, c.dtype());
                    float[] seen = c.array().toFloatArray();
                    for (int i = 0; i < 16; i++) {
                        assertEquals(values[i], seen[i], "element " + i);
                    }
                }
            }
        }
    }
}
