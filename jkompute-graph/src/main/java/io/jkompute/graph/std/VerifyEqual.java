package io.jkompute.graph.std;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * Takes one message from {@code receiver0} and one from {@code receiver1} per tick and requires their first tensors
 * to be exactly equal (shape, element type, every byte); device tensors are read back to the host first.
 *
 * <p>{@code frames_in_flight} (default 2, 0 to 64): how many frames may have their device read-back still running.
 * With 0 each frame is read back and compared in its own tick (lock-step: the tick waits for the GPU). With N > 0 a
 * frame's read-back is started when it arrives ({@link DeviceTensor#prefetchToHost()}) and its messages are kept;
 * frames are compared in arrival order, as soon as their read-back completes and at the latest when more than N are
 * pending, and at {@code stop()} every pending frame is compared. So the GPU works on frames n+1..n+N while the host
 * compares frame n, and every frame is still checked. The pools the kept messages come from need N blocks more than
 * lock-step does, or the upstream entities starve (the run then ends in a deadlock with frames uncounted).
 */
public class VerifyEqual extends CodeletAdapter {
    /**
     * Creates the codelet with its parameters at their defaults; a {@code JavaCodelet} instantiates it and sets them
     * from the app.
     */
    public VerifyEqual() {
    }

    /** The largest {@code frames_in_flight}: more adds latency, not throughput, and pins that many pool blocks. */
    public static final int MAX_FRAMES_IN_FLIGHT = 64;

    private Receiver in0;
    private Receiver in1;
    /** Read by monitors on other threads (a benchmark samples memory at 10% of a run). */
    private volatile long verified;
    private long received;
    private int inFlight = 2;
    /** Ring of pending frames: both messages (retained), their first tensors, the frame number. */
    private Message[] messages0 = new Message[0];
    private Message[] messages1 = new Message[0];
    private GraphTensor[] tensors0 = new GraphTensor[0];
    private GraphTensor[] tensors1 = new GraphTensor[0];
    private long[] frames = new long[0];
    private int head;
    private int pending;
    private boolean failed;

    @Override
    public void initialize() {
        if (params().containsKey("frames_in_flight")) {
            long n = longParam("frames_in_flight");
            if (n < 0 || n > MAX_FRAMES_IN_FLIGHT) {
                throw new IllegalArgumentException("frames_in_flight must be 0 (lock-step) to " + MAX_FRAMES_IN_FLIGHT
                        + ", got " + n);
            }
            inFlight = (int) n;
        }
    }

    @Override
    public void start() {
        in0 = receiver(param("receiver0"));
        in1 = receiver(param("receiver1"));
        int cap = Math.max(1, inFlight + 1);
        messages0 = new Message[cap];
        messages1 = new Message[cap];
        tensors0 = new GraphTensor[cap];
        tensors1 = new GraphTensor[cap];
        frames = new long[cap];
        head = pending = 0;
        received = verified = 0;
        failed = false;
    }

    @Override
    public void tick() {
        Message m0 = receive(in0);
        Message m1 = receive(in1);
        long frame = ++received;
        GraphTensor t0 = firstTensor(m0, in0);
        GraphTensor t1 = firstTensor(m1, in1);
        if (!Arrays.equals(t0.shape(), t1.shape())) {
            fail("shapes differ: " + Arrays.toString(t0.shape()) + " vs " + Arrays.toString(t1.shape()) + " in frame "
                    + frame);
        }
        if (t0.dataType() != t1.dataType()) {
            fail("element types differ: " + t0.dataType() + " vs " + t1.dataType() + " in frame " + frame);
        }
        if (inFlight == 0) {
            compare(t0, t1, frame);
            return;
        }
        prefetch(t0);
        prefetch(t1);
        int slot = (head + pending) % frames.length;
        messages0[slot] = m0.retain();
        messages1[slot] = m1.retain();
        tensors0[slot] = t0;
        tensors1[slot] = t1;
        frames[slot] = frame;
        pending++;
        // compare what the GPU has finished, in order, without waiting; wait only for frames beyond the limit
        while (pending > 0 && (pending > inFlight || readBack(tensors0[head]) && readBack(tensors1[head]))) {
            compareHead();
        }
    }

    /** Compares every frame still pending, in order; a frame that differs fails the stop with its number. */
    @Override
    public void stop() {
        try {
            while (pending > 0 && !failed) {
                compareHead();
            }
        } finally {
            while (pending > 0) {
                releaseHead();
            }
        }
    }

    private void compareHead() {
        try {
            compare(tensors0[head], tensors1[head], frames[head]);
        } finally {
            releaseHead();
        }
    }

    private void releaseHead() {
        Message a = messages0[head];
        Message b = messages1[head];
        messages0[head] = messages1[head] = null;
        tensors0[head] = tensors1[head] = null;
        head = (head + 1) % frames.length;
        pending--;
        try {
            a.release();
        } finally {
            b.release();
        }
    }

    private static void prefetch(GraphTensor t) {
        if (t instanceof DeviceTensor d) {
            d.prefetchToHost();
        }
    }

    private static boolean readBack(GraphTensor t) {
        return !(t instanceof DeviceTensor d) || d.prefetchToHost().isReached();
    }

    /** Compares in place where the bytes lie dense in host memory (host tensors, device read-backs); no copy. */
    private void compare(GraphTensor t0, GraphTensor t1, long frame) {
        MemorySegment a = hostBytes(t0);
        MemorySegment b = hostBytes(t1);
        if (a != null && b != null) {
            check(t0, a, t1, b, frame);
            verified++;
            verifiedFrame(frame, a);
        } else {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment da = a != null ? a : Tensors.dense(t0, arena);
                check(t0, da, t1, b != null ? b : Tensors.dense(t1, arena), frame);
                verified++;
                verifiedFrame(frame, da);
            }
        }
    }

    /**
     * Called for each frame that compared equal, in arrival order, with the first tensor's dense bytes (valid only
     * during the call). Does nothing; a subclass can check more of each frame, e.g. its number and contents.
     */
    protected void verifiedFrame(long frame, MemorySegment bytes) {
    }

    private static MemorySegment hostBytes(GraphTensor t) {
        if (t instanceof DeviceTensor d) {
            return d.hostView();
        }
        if (t instanceof HostTensor h && h.isDense()) {
            return h.data().asSlice(0, h.byteSize());
        }
        return null;
    }

    private void check(GraphTensor t0, MemorySegment a, GraphTensor t1, MemorySegment b, long frame) {
        long at = a.mismatch(b);
        if (at >= 0) {
            long element = at / t0.dataType().byteSize();
            fail("tensors differ at element " + element + " (" + t0.storage() + " " + Tensors.describe(t0, a, element)
                    + " vs " + t1.storage() + " " + Tensors.describe(t1, b, element) + ") in frame " + frame);
        }
    }

    private void fail(String message) {
        failed = true;
        throw new AssertionError(message);
    }

    private static Message receive(Receiver rx) {
        Message m = rx.receive();
        if (m == null) {
            throw new IllegalStateException("no message in '" + rx.path() + "'");
        }
        return m;
    }

    private static GraphTensor firstTensor(Message m, Receiver rx) {
        List<GraphTensor> tensors = m.findAll(GraphTensor.class);
        if (tensors.isEmpty()) {
            throw new IllegalStateException("the message from '" + rx.path() + "' holds no tensor (it has " + m.names() + ")");
        }
        return tensors.get(0);
    }

    @Override
    public String summary() {
        return verified + (verified == 1 ? " frame" : " frames") + " verified";
    }

    /** Message pairs verified so far. */
    public long verified() {
        return verified;
    }

    /** The {@code frames_in_flight} in use. */
    public int framesInFlight() {
        return inFlight;
    }
}
