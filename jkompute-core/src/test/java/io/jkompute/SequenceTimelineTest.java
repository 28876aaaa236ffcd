package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Points on a sequence's timeline: uploads, dispatches and read-backs submitted back to back, each waiting for the
 * one before on the GPU (not the host), with several frames in flight; exact values at the end of every chain. Run
 * under Khronos validation with synchronization checks in CI, so a missing wait or barrier fails in GpuTestBase.
 */
class SequenceTimelineTest extends GpuTestBase {
    /** y = 2x + 1 on 64 floats. */
    static final String SCALE = """
            #version 450
            layout (local_size_x = 64) in;
            layout (set = 0, binding = 0) readonly buffer X { float x[]; };
            layout (set = 0, binding = 1) writeonly buffer Y { float y[]; };
            void main() { uint i = gl_GlobalInvocationID.x; y[i] = 2.0 * x[i] + 1.0; }
            """;
    static final int N = 64;

    static float input(int frame, int i) {
        return (frame * 31 + i * 7) % 1000 - 500f;
    }

    /** One slot of the ring: input and output tensors, the kernel binding them, its sequence. */
    record Slot(Tensor x, Tensor y, Algorithm kernel, Sequence dispatch) implements AutoCloseable {
        @Override
        public void close() {
            dispatch.close();
            kernel.close();
            y.close();
            x.close();
        }
    }

    Slot slot(byte[] spirv) {
        Tensor x = mgr.tensor(DataType.FLOAT32, new long[] {N}, MemoryType.DEVICE);
        Tensor y = mgr.tensor(DataType.FLOAT32, new long[] {N}, MemoryType.DEVICE);
        Algorithm k = mgr.algorithm(List.of(x, y), spirv, Workgroup.covering(N, 64), Constants.NONE, Constants.NONE);
        return new Slot(x, y, k, mgr.sequence().record(new OpAlgoDispatch(k)));
    }

    /**
     * Frames 1..200 through a ring of {@code depth} slots: upload (async), dispatch waiting for the upload's point,
     * read-back waiting for the dispatch's point; the host only waits for a frame's read-back when its slot comes
     * round again, and then checks every element exactly.
     */
    void ring(int depth) {
        byte[] spirv = Shader.compile(SCALE);
        Slot[] slots = new Slot[depth];
        Sequence.Point[] readbacks = new Sequence.Point[depth];
        int[] frameOf = new int[depth];
        int frames = 200;
        int checked = 0;
        try {
            for (int i = 0; i < depth; i++) {
                slots[i] = slot(spirv);
            }
            for (int f = 1; f <= frames + depth; f++) {
                int k = f % depth;
                Slot s = slots[k];
                if (readbacks[k] != null) {
                    readbacks[k].await();
                    assertTrue(readbacks[k].isReached());
                    float[] y = s.y().toFloatArray();
                    for (int i = 0; i < N; i++) {
                        assertEquals(2 * input(frameOf[k], i) + 1, y[i], "frame " + frameOf[k] + " element " + i);
                    }
                    checked++;
                    readbacks[k] = null;
                }
                if (f > frames) {
                    continue;
                }
                s.x().awaitSyncs();   // the last upload from this staging slice is done before it is written again
                float[] in = new float[N];
                for (int i = 0; i < N; i++) {
                    in[i] = input(f, i);
                }
                s.x().setData(in);
                Sequence.Point up = s.x().syncDeviceAsync();
                if (s.dispatch().isRunning()) {
                    s.dispatch().evalAwait();
                }
                s.dispatch().nextWaitsFor(up).evalAsync();
                Sequence.Point done = s.dispatch().point();
                readbacks[k] = s.y().syncLocalAsync(done);
                frameOf[k] = f;
            }
            assertEquals(frames, checked);
        } finally {
            for (Slot s : slots) {
                if (s != null) s.close();
            }
        }
    }

    @Test
    void oneFrameInFlight() {
        ring(1);
    }

    @Test
    void fourFramesInFlight() {
        ring(4);
    }

    @Test
    void pointsCountSubmissions() {
        try (Tensor t = mgr.tensor(new float[] {1, 2, 3}, MemoryType.DEVICE); Sequence s = mgr.sequence()) {
            assertSame(Sequence.Point.REACHED, s.point());
            assertTrue(Sequence.Point.REACHED.isReached());
            Sequence.Point.REACHED.await();
            s.record(new OpSyncDevice(t));
            for (int k = 1; k <= 3; k++) {
                s.evalAsync();
                Sequence.Point p = s.point();
                assertEquals(k, p.value());
                assertSame(s, p.sequence());
                assertTrue(p.await(Duration.ofSeconds(60)));
                assertTrue(p.isReached());
                s.evalAwait();
            }
            t.setData(new float[3]);
            t.syncLocal();
            assertArrayEquals(new float[] {1, 2, 3}, t.toFloatArray());
            // syncs of a tensor: the blocking ones still work after async ones, and awaitSyncs waits for all
            t.setData(new float[] {4, 5, 6});
            Sequence.Point up = t.syncDeviceAsync();
            t.awaitSyncs();
            assertTrue(up.isReached());
            t.setData(new float[] {0, 0, 0});
            Sequence.Point down = t.syncLocalAsync(up);
            down.await();
            assertArrayEquals(new float[] {4, 5, 6}, t.toFloatArray());
            t.syncLocal();
            t.syncDevice();
            assertArrayEquals(new float[] {4, 5, 6}, t.toFloatArray());
        }
        try (Tensor h = mgr.tensor(new float[] {7}, MemoryType.HOST)) {
            assertSame(Sequence.Point.REACHED, h.syncDeviceAsync(), "HOST memory needs no copy");
            assertSame(Sequence.Point.REACHED, h.syncLocalAsync());
        }
    }

    @Test
    void aClosedSequencesPointIsReachedButCannotBeWaitedOnByTheGpu() {
        try (Tensor t = mgr.tensor(new float[] {1}, MemoryType.DEVICE); Sequence other = mgr.sequence()) {
            Sequence s = mgr.sequence().record(new OpSyncDevice(t));
            s.evalAsync();
            Sequence.Point p = s.point();
            s.close();
            assertTrue(p.isReached(), "closing waited for the submission");
            p.await();
            var e = assertThrows(IllegalStateException.class, () -> other.nextWaitsFor(p));
            assertEquals("nextWaitsFor: " + s + " is closed, so its timeline can no longer be waited on (point 1);"
                    + " its work completed before it closed: drop the wait", e.getMessage());
            assertEquals(s + " is closed", assertThrows(IllegalStateException.class, s::evalAsync).getMessage());
            assertEquals(s + " is closed", assertThrows(IllegalStateException.class,
                    () -> s.nextWaitsFor(Sequence.Point.REACHED)).getMessage());
            other.record(new OpSyncLocal(t)).eval();   // the refused wait left nothing behind
            assertArrayEquals(new float[] {1}, t.toFloatArray());
        }
    }

    /**
     * A sequence closed while another's submission waits on its semaphore: close drains that submission first (the
     * semaphore must outlive it; validation would report a destroyed semaphore otherwise), and the waiter's result
     * is exact.
     */
    @Test
    void closeDrainsTheSubmissionsThatWaitOnIt() {
        int n = 1024;
        int rounds = 20_000;
        try (Tensor a = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.STORAGE);
                Tensor b = mgr.tensor(DataType.UINT32, new long[] {n}, MemoryType.HOST);
                Algorithm slow = mgr.algorithm(List.of(a), Shader.compile(SequenceTest.SLOW), Workgroup.covering(n, 64),
                        Constants.NONE, Constants.uints(rounds));
                Sequence second = mgr.sequence()) {
            Sequence first = mgr.sequence().record(new OpAlgoDispatch(slow));
            first.evalAsync();
            second.record(new OpCopy(a, b)).nextWaitsFor(first.point()).evalAsync();
            Sequence.Point copied = second.point();
            first.close();
            assertTrue(copied.isReached(), "closing the first sequence waited for the copy that waits on it");
            second.evalAwait();
            int[] o = b.toIntArray();
            for (int i = 0; i < n; i += 97) {
                assertEquals(SequenceTest.lcg(i, rounds), o[i]);
            }
            // the wait was for one submission only: the next one runs without it
            second.eval();
            assertEquals(2, second.point().value());
        }
    }

    /**
     * On two queues the GPU wait is what orders the copy after the slow shader (there is no submission order between
     * queues); and closing the first sequence drains the second's submission that waits on it.
     */
    @Test
    @Tag("gpu")
    void aPointIsWaitedForAcrossTwoQueues() {
        DeviceProperties p = mgr.deviceProperties();
        int[] families = SequenceTest.twoQueues(p);
        Assumptions.assumeTrue(families != null, "needs two compute queues; " + p.name() + " has one");
        try (Manager two = new Manager(0, families, List.of())) {
            int n = 1 << 16;
            int rounds = 60_000;
            try (Tensor a = two.tensor(DataType.UINT32, new long[] {n}, MemoryType.STORAGE);
                    Tensor b = two.tensor(DataType.UINT32, new long[] {n}, MemoryType.HOST);
                    Algorithm slow = two.algorithm(List.of(a), Shader.compile(SequenceTest.SLOW), Workgroup.covering(n, 64),
                            Constants.NONE, Constants.uints(rounds));
                    Sequence second = two.sequence(1)) {
                Sequence first = two.sequence(0).record(new OpAlgoDispatch(slow));
                first.evalAsync();
                second.record(new OpCopy(a, b)).nextWaitsFor(first.point()).evalAsync();
                Sequence.Point copied = second.point();
                first.close();
                assertTrue(copied.isReached(), "closing the first sequence waited for the copy that waits on it");
                second.evalAwait();
                int[] o = b.toIntArray();
                for (int i = 0; i < n; i += 4099) {
                    assertEquals(SequenceTest.lcg(i, rounds), o[i]);
                }
            }
        }
    }

    @Test
    void pointsOfSeveralSequencesInOneSubmission() {
        try (Tensor a = mgr.tensor(new float[] {1, 2}, MemoryType.DEVICE);
                Tensor b = mgr.tensor(new float[] {3, 4}, MemoryType.DEVICE);
                Tensor c = mgr.tensor(new float[2], MemoryType.DEVICE);
                Algorithm mult = mgr.algorithm();
                Sequence s = mgr.sequence()) {
            Sequence.Point pa = a.syncDeviceAsync();
            Sequence.Point pb = b.syncDeviceAsync();
            s.record(new OpMult(a, b, c, mult)).nextWaitsFor(pa).nextWaitsFor(pb).nextWaitsFor(pa).evalAsync();
            c.syncLocalAsync(s.point()).await();
            assertArrayEquals(new float[] {3, 8}, c.toFloatArray());
            s.evalAwait();
        }
    }
}
