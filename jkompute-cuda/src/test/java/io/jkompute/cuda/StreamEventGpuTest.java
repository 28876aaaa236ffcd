package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("gpu")
class StreamEventGpuTest {
    private static CudaModule module;

    @BeforeAll
    static void load() {
        if (Cuda.isAvailable()) module = GpuTestSupport.testKernels();
    }

    @AfterAll
    static void unload() {
        if (module != null) module.close();
    }

    @BeforeEach
    void needsCuda() {
        GpuTestSupport.requireCuda();
    }

    @Test
    void eventsTimeAKernelOfKnownDuration() {
        Kernel spin = module.kernel("spin");
        try (Stream s = Stream.create(); Event start = Event.create(); Event end = Event.create()) {
            start.record(s);
            spin.launch(s, Dim3.of(1), Dim3.of(1), 0, 20_000_000L); // 20 ms
            end.record(s);
            assertFalse(end.query(), "the event completed before a 20 ms kernel could have");
            assertFalse(s.query());
            end.synchronize();
            assertTrue(end.query());
            assertTrue(s.query());
            float ms = end.elapsedMillisSince(start);
            System.out.println("20 ms spin kernel timed by events: " + ms + " ms");
            assertTrue(ms >= 19.9f && ms < 60f, "elapsed " + ms + " ms");
        }
    }

    @Test
    void kernelsOnTwoStreamsOverlap() {
        Kernel spin = module.kernel("spin");
        try (Stream a = Stream.create(); Stream b = Stream.create()) {
            spin.launch(a, Dim3.of(1), Dim3.of(1), 0, 1_000_000L); // warm-up
            a.synchronize();
            long t0 = System.nanoTime();
            spin.launch(a, Dim3.of(1), Dim3.of(1), 0, 50_000_000L);
            spin.launch(b, Dim3.of(1), Dim3.of(1), 0, 50_000_000L);
            a.synchronize();
            b.synchronize();
            double ms = (System.nanoTime() - t0) / 1e6;
            System.out.println("two 50 ms kernels on two streams took " + ms + " ms");
            assertTrue(ms < 85, "streams did not overlap: " + ms + " ms for two 50 ms kernels");
            // the same two on one stream run back to back
            long t1 = System.nanoTime();
            spin.launch(a, Dim3.of(1), Dim3.of(1), 0, 50_000_000L);
            spin.launch(a, Dim3.of(1), Dim3.of(1), 0, 50_000_000L);
            a.synchronize();
            double serial = (System.nanoTime() - t1) / 1e6;
            assertTrue(serial >= 99.9, "one stream ran its kernels in " + serial + " ms");
        }
    }

    @Test
    void streamWaitsForAnEventOfAnother() {
        Kernel spin = module.kernel("spin");
        try (Stream a = Stream.create(); Stream b = Stream.create(); Event done = Event.create(false, false)) {
            spin.launch(a, Dim3.of(1), Dim3.of(1), 0, 30_000_000L);
            done.record(a);
            b.waitFor(done);
            Event after = Event.create().record(b);
            assertFalse(after.query(), "b ran past an event of a that cannot have completed");
            after.synchronize();
            assertTrue(done.query());
            after.close();
        }
    }

    @Test
    void asyncPinnedCopiesRoundTrip() {
        int n = 1 << 20;
        try (PinnedMemory in = PinnedMemory.allocate(4L * n); PinnedMemory out = PinnedMemory.allocate(4L * n);
             DeviceMemory d = DeviceMemory.allocate(4L * n); Stream s = Stream.create()) {
            MemorySegment src = in.segment(), dst = out.segment();
            for (int i = 0; i < n; i++) src.setAtIndex(ValueLayout.JAVA_INT, i, i * 31 + 7);
            d.copyFromHostAsync(src, 0, s);
            d.memsetAsync((byte) 0, 0, 4, s); // element 0 becomes 0, in stream order
            d.copyToHostAsync(0, dst, s);
            s.synchronize();
            assertTrue(dst.getAtIndex(ValueLayout.JAVA_INT, 0) == 0);
            for (int i = 1; i < n; i++) {
                if (dst.getAtIndex(ValueLayout.JAVA_INT, i) != i * 31 + 7) throw new AssertionError("element " + i);
            }
            assertThrows(IllegalArgumentException.class, () -> d.copyFromHostAsync(MemorySegment.ofArray(new int[4]), 0, s));
        }
    }

    @Test
    void unrecordedEventsAndForeignStreamsAreRejected() {
        try (Event e = Event.create()) {
            assertThrows(IllegalStateException.class, e::synchronize);
            assertThrows(IllegalStateException.class, () -> e.elapsedMillisSince(e));
        }
        int[] data = {1, 2, 3};
        try (GpuArray a = GpuArray.toGpu(data); Stream s = Stream.create()) {
            MemorySegment heap = MemorySegment.ofArray(new int[3]);
            assertThrows(IllegalArgumentException.class, () -> a.get(heap, s));
            assertArrayEquals(data, a.toIntArray());
        }
    }
}
