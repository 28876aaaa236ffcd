package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import io.jkompute.internal.VulkanInstance;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Objects made, used and closed on different threads, as a graph does when a network receiver uploads each arriving
 * device tensor into a new buffer on its own thread while the scheduler's thread dispatches kernels on it. Run under
 * {@code JKOMPUTE_VALIDATION=sync} (as CI does), a buffer, pipeline or semaphore destroyed while the GPU may still use
 * it, or a queue used from two threads at once, is a validation error and fails the test; on real GPUs it is a fault
 * (VK_ERROR_DEVICE_LOST).
 */
class ConcurrentLifetimeTest extends GpuTestBase {
    static final String SCALE = """
            #version 450
            layout(local_size_x = 64) in;
            layout(set = 0, binding = 0) readonly buffer In { float x[]; };
            layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
            layout(constant_id = 0) const uint N = 1024;
            void main() {
                uint i = gl_GlobalInvocationID.x;
                if (i < N) { y[i] = 2.0 * x[i] + 1.0; }
            }
            """;

    private record Frame(int index, Tensor in, Sequence.Point ready) {
    }

    private record Pair(Tensor in, Tensor out) {
    }

    private record Kernel(Algorithm algorithm, Sequence sequence) {
    }

    private record InFlight(int index, Tensor in, Tensor out, Sequence.Point readBack) {
    }

    private static final Frame END = new Frame(-1, null, null);

    /** Values whose doubling plus one is exact in float32. */
    private static float input(int frame, int j) {
        return (frame % 997) + j * 0.5f;
    }

    /**
     * One thread makes a DEVICE tensor per frame, uploads it (waiting, or not and handing on the upload's point) and
     * closes the tensors the other thread is done with; the other dispatches a kernel cached per (input, output)
     * pair, closing old kernels by generations of 64, and reads the results back with points, three frames in flight.
     * Every frame's result is checked exactly.
     */
    @Test
    void perFrameDeviceTensorsUploadedOnOneThreadAndDispatchedOnAnother() throws Exception {
        perFrameTensors(false);
    }

    /**
     * As above, but the dispatching thread closes each input once its frame is verified, as a graph's scheduler does
     * when it releases a message whose tensor a network receiver made: closes (each waiting for the device) on one
     * thread, uploads on the other.
     */
    @Test
    void perFrameDeviceTensorsClosedByTheDispatchingThread() throws Exception {
        perFrameTensors(true);
    }

    private void perFrameTensors(boolean dispatcherCloses) throws Exception {
        int frames = Integer.getInteger("jkompute.test.lifetimeFrames", 800);
        int n = 1024;
        long errorsBefore = VulkanInstance.validationErrors();
        byte[] spirv = Shader.compile(SCALE);
        BlockingQueue<Frame> toGpu = new ArrayBlockingQueue<>(4);
        BlockingQueue<Tensor> done = new LinkedBlockingQueue<>();
        Tensor endOfClosing = mgr.tensor(new float[1]);
        AtomicReference<Throwable> uploaderFailure = new AtomicReference<>();
        Thread uploader = Thread.ofPlatform().name("uploader").start(() -> {
            try {
                float[] x = new float[n];
                for (int i = 0; i < frames; i++) {
                    Tensor t = mgr.tensor(DataType.FLOAT32, n);
                    for (int j = 0; j < n; j++) {
                        x[j] = input(i, j);
                    }
                    t.setData(x);
                    Sequence.Point ready;
                    if (i % 3 == 0) {
                        t.syncDevice();
                        ready = Sequence.Point.REACHED;
                    } else {
                        ready = t.syncDeviceAsync();
                    }
                    toGpu.put(new Frame(i, t, ready));
                    for (Tensor d; (d = done.poll()) != null; ) {
                        d.close();
                    }
                }
                toGpu.put(END);
                for (Tensor d; (d = done.take()) != endOfClosing; ) {
                    d.close();
                }
            } catch (Throwable e) {
                uploaderFailure.set(e);
                toGpu.clear();
                toGpu.offer(END);
            }
        });
        Tensor[] outs = new Tensor[4];
        for (int k = 0; k < outs.length; k++) {
            outs[k] = mgr.tensor(DataType.FLOAT32, n);
        }
        Map<Pair, Kernel> kernels = new HashMap<>();
        Map<Pair, Kernel> retired = new HashMap<>();
        ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
        int verified = 0;
        try {
            for (Frame f; (f = toGpu.poll(120, TimeUnit.SECONDS)) != END; ) {
                assertNotNull(f, "the uploader sent nothing for 120 s");
                Tensor out = outs[f.index() % outs.length];
                while (inFlight.size() >= 3 || (!inFlight.isEmpty() && inFlight.stream().anyMatch(g -> g.out() == out))) {
                    verified += finish(inFlight.poll(), n, dispatcherCloses ? null : done);
                }
                Pair key = new Pair(f.in(), out);
                if (kernels.size() >= 64 && !kernels.containsKey(key)) {
                    closeAll(retired);
                    retired = kernels;
                    kernels = new HashMap<>();
                }
                Kernel k = kernels.computeIfAbsent(key, p -> {
                    Algorithm a = mgr.algorithm(List.of(p.in(), p.out()), spirv, Workgroup.covering(n, 64),
                            Constants.uints(n), Constants.NONE);
                    return new Kernel(a, mgr.sequence().record(new OpAlgoDispatch(a)));
                });
                Sequence s = k.sequence();
                if (s.isRunning()) {
                    s.evalAwait();
                }
                s.nextWaitsFor(f.ready()).evalAsync();
                inFlight.add(new InFlight(f.index(), f.in(), out, out.syncLocalAsync(s.point())));
            }
            while (!inFlight.isEmpty()) {
                verified += finish(inFlight.poll(), n, dispatcherCloses ? null : done);
            }
        } finally {
            done.put(endOfClosing);
            uploader.join(TimeUnit.MINUTES.toMillis(2));
            closeAll(retired);
            closeAll(kernels);
            for (Tensor o : outs) {
                o.close();
            }
            endOfClosing.close();
        }
        assertNull(uploaderFailure.get(), () -> "the uploader failed: " + uploaderFailure.get());
        assertEquals(frames, verified);
        assertEquals(0, VulkanInstance.validationErrors() - errorsBefore, "Vulkan validation errors (see the log)");
    }

    /**
     * An algorithm closed on another thread after a submission checked that it is open, but before the submission
     * was made: the close must wait for that submission (or the submission must fail with an exception), never free
     * the pipeline and descriptor set under it. The submission is held inside that window by holding the init batch,
     * which it flushes there, while a new tensor's zero-fill is pending.
     */
    @Test
    void anAlgorithmClosedWhileASubmissionIsBeingMadeIsNotFreedUnderIt() throws Exception {
        long errorsBefore = VulkanInstance.validationErrors();
        Tensor t = mgr.tensor(new float[] {1, 2, 3, 4}, MemoryType.HOST);
        Algorithm a = mgr.algorithm(List.of(t), Shader.compile(SequenceTest.ADD_ONE));
        Sequence s = mgr.sequence().record(new OpAlgoDispatch(a));
        s.eval();
        Tensor pending = mgr.tensor(new float[4]);   // its zero-fill waits in the init batch for the next submission
        AtomicReference<Throwable> submitFailure = new AtomicReference<>();
        Thread submitter;
        Thread closer;
        synchronized (mgr.initBatch()) {
            submitter = Thread.ofPlatform().name("submitter").start(() -> {
                try {
                    s.evalAsync();
                    s.evalAwait();
                } catch (Throwable e) {
                    submitFailure.set(e);
                }
            });
            awaitState(submitter, Thread.State.BLOCKED);   // past the checks, at the init batch's flush
            closer = Thread.ofPlatform().name("closer").start(a::close);
            // before the fix the close freed the pipeline at once; now it waits for the submission being made
            awaitState(closer, Thread.State.WAITING, Thread.State.TERMINATED);
        }
        submitter.join(TimeUnit.MINUTES.toMillis(2));
        closer.join(TimeUnit.MINUTES.toMillis(2));
        assertFalse(submitter.isAlive() || closer.isAlive(), "the submission or the close never finished");
        assertTrue(a.isClosed());
        if (submitFailure.get() == null) {
            assertArrayEquals(new float[] {3, 4, 5, 6}, t.toFloatArray());
        } else {
            // refusing the submission is the other correct outcome
            assertInstanceOf(IllegalStateException.class, submitFailure.get());
        }
        s.close();
        pending.close();
        t.close();
        assertEquals(0, VulkanInstance.validationErrors() - errorsBefore, "Vulkan validation errors (see the log)");
    }

    /** Rebuilding an algorithm while a submission of it runs waits for the GPU before destroying the old pipeline. */
    @Test
    void rebuildingAnAlgorithmWhileItRunsWaitsForTheGpu() {
        long errorsBefore = VulkanInstance.validationErrors();
        try (Tensor out = mgr.tensor(DataType.UINT32, new long[] {4096}, MemoryType.HOST);
                Algorithm a = mgr.algorithm(List.of(out), Shader.compile(SequenceTest.SLOW), Workgroup.covering(4096, 64),
                        Constants.NONE, Constants.uints(20_000));
                Sequence s = mgr.sequence().record(new OpAlgoDispatch(a))) {
            s.evalAsync();
            a.rebuild(List.of(out), Shader.compile(SequenceTest.SLOW), Workgroup.covering(4096, 64), Constants.NONE,
                    Constants.uints(3));
            s.evalAwait();
            assertEquals(SequenceTest.lcg(4095, 20_000), out.toIntArray()[4095]);
            s.eval();   // re-records with the new build
            assertEquals(SequenceTest.lcg(4095, 3), out.toIntArray()[4095]);
        }
        assertEquals(0, VulkanInstance.validationErrors() - errorsBefore, "Vulkan validation errors (see the log)");
    }

    private static void awaitState(Thread t, Thread.State... states) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!List.of(states).contains(t.getState())) {
            if (System.nanoTime() > end) {
                fail(t.getName() + " is " + t.getState() + " after 2 minutes, expected one of " + List.of(states));
            }
            Thread.sleep(1);
        }
    }

    /** Waits for a frame's read-back, checks it, and closes its input here (done null) or hands it to the uploader. */
    private static int finish(InFlight g, int n, BlockingQueue<Tensor> done) throws InterruptedException {
        assertTrue(g.readBack().await(java.time.Duration.ofMinutes(2)), "frame " + g.index() + " never came back");
        float[] y = g.out().toFloatArray();
        for (int j = 0; j < n; j++) {
            float want = 2 * input(g.index(), j) + 1;
            if (y[j] != want) {
                fail("frame " + g.index() + " element " + j + ": " + y[j] + ", expected " + want);
            }
        }
        if (done == null) {
            g.in().close();
        } else {
            done.put(g.in());
        }
        return 1;
    }

    private static void closeAll(Map<Pair, Kernel> ks) {
        for (Kernel k : ks.values()) {
            k.sequence().close();
            k.algorithm().close();
        }
        ks.clear();
    }
}
