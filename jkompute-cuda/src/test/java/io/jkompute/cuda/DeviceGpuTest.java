package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("gpu")
class DeviceGpuTest {

    @BeforeEach
    void needsCuda() {
        GpuTestSupport.requireCuda();
    }

    @Test
    void devicePropertiesAreRead() {
        assertTrue(Cuda.deviceCount() >= 1);
        CudaDevice d = Cuda.device(0);
        System.out.println(d + ", driver " + Cuda.driverVersion() + ", uuid " + d.uuid());
        assertFalse(d.name().isBlank());
        assertTrue(d.computeCapabilityMajor() >= 5, d.toString());
        assertTrue(d.totalMemory() > 1L << 30, d.toString());
        assertTrue(d.multiprocessorCount() > 0);
        assertEquals(32, d.warpSize());
        assertEquals(1024, d.maxThreadsPerBlock());
        assertTrue(Cuda.driverVersion() >= 12000);
        MemoryInfo m = Cuda.memoryInfo();
        assertTrue(m.free() > 0 && m.free() <= m.total() && m.total() == d.totalMemory(), m.toString());
    }

    @Test
    void setDeviceChecksTheIndexAndGetDeviceIsPerThread() throws Exception {
        Cuda.setDevice(0);
        assertEquals(0, Cuda.getDevice());
        assertEquals(CudaError.SUCCESS, Cuda.trySetDevice(0));
        var e = assertThrows(IllegalArgumentException.class, () -> Cuda.setDevice(Cuda.deviceCount()));
        assertTrue(e.getMessage().startsWith("no CUDA device " + Cuda.deviceCount()), e.getMessage());
        int[] seen = {-1};
        Thread t = Thread.ofPlatform().start(() -> seen[0] = Cuda.getDevice());
        t.join();
        assertEquals(0, seen[0]);
        Cuda.synchronize();
    }

    @Test
    void aFailedCallIsAnExceptionAndTheLastStatus() {
        long tooMuch = 2 * Cuda.device().totalMemory();
        var e = assertThrows(CudaException.class, () -> DeviceMemory.allocate(tooMuch));
        assertEquals(2, e.error().code());
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.error().name());
        assertEquals(e.error(), Cuda.lastStatus());
        assertTrue(e.getMessage().startsWith("cuMemAlloc(" + tooMuch + " bytes) failed: CUDA_ERROR_OUT_OF_MEMORY (2): "), e.getMessage());
        Cuda.synchronize();
        assertEquals(CudaError.SUCCESS, Cuda.lastStatus());
        // the PyGPU-style layer returns the same error instead of throwing; its host side is never touched
        DeviceArray huge = DeviceArray.of(DType.UINT8, java.lang.foreign.MemorySegment.NULL.reinterpret(tooMuch));
        CudaError r = huge.allocate();
        assertEquals(2, r.code());
        assertEquals(r, huge.lastStatus());
        assertFalse(huge.isAllocated());
    }

    /** Virtual threads hop between carrier threads; each call must still find its context current. */
    @Test
    void worksFromManyVirtualThreads() throws Exception {
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<float[]>> results = VirtualThreadBurstProbe.submit(ex);
            for (int t = 0; t < 64; t++) {
                float[] got = results.get(t).get();
                assertEquals(1000 + t, got.length);
                assertEquals(t * 10_000f, got[0]);
                for (int i = 1; i < got.length; i++) assertEquals(t, got[i], 0f);
            }
        }
    }

    @Test
    void deviceMemoryCopiesAndMemsets() {
        try (DeviceMemory a = DeviceMemory.allocate(1024); DeviceMemory b = DeviceMemory.allocate(1024)) {
            byte[] src = new byte[1024];
            for (int i = 0; i < src.length; i++) src[i] = (byte) (i * 7);
            a.copyFromHost(java.lang.foreign.MemorySegment.ofArray(src));
            b.memset((byte) 0x5A);
            b.copyFrom(a, 100, 200, 50);
            byte[] out = new byte[1024];
            b.copyToHost(java.lang.foreign.MemorySegment.ofArray(out));
            for (int i = 0; i < 1024; i++) {
                byte want = i >= 200 && i < 250 ? src[i - 200 + 100] : 0x5A;
                assertEquals(want, out[i], "byte " + i);
            }
            b.memset32(0x01020304, 8, 2);
            byte[] four = new byte[16];
            b.copyToHost(0, java.lang.foreign.MemorySegment.ofArray(four));
            assertArrayEquals(new byte[] {0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 4, 3, 2, 1, 4, 3, 2, 1}, four);
            assertThrows(IndexOutOfBoundsException.class, () -> b.copyFrom(a, 1000, 0, 100));
            assertThrows(IndexOutOfBoundsException.class, () -> b.memset((byte) 0, 1020, 8));
        }
    }

    @Test
    void closedObjectsRefuseUse() {
        DeviceMemory m = DeviceMemory.allocate(64);
        m.close();
        m.close();
        assertThrows(IllegalStateException.class, () -> m.memset((byte) 1));
        Stream s = Stream.create();
        s.close();
        assertThrows(IllegalStateException.class, s::synchronize);
        GpuArray a = GpuArray.toGpu(new int[] {1, 2, 3, 4});
        GpuArray v = a.slice(Slice.range(1, 3));
        a.close();
        assertThrows(IllegalStateException.class, v::get);
        PinnedMemory p = PinnedMemory.allocate(64);
        var seg = p.segment();
        p.close();
        assertThrows(IllegalStateException.class, () -> seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void aLeakedAllocationIsFreedAndReported() throws InterruptedException {
        long before = io.jkompute.cuda.internal.Leaks.reported();
        long freeBefore = Cuda.memoryInfo().free();
        leak(256L << 20);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (io.jkompute.cuda.internal.Leaks.reported() == before && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertTrue(io.jkompute.cuda.internal.Leaks.reported() > before, "the leak was not reported within 10 s");
        assertTrue(Cuda.memoryInfo().free() >= freeBefore - (64L << 20), "the leaked 256 MiB were not freed");
    }

    private static void leak(long bytes) {
        DeviceMemory.allocate(bytes).memset((byte) 1);
    }
}
