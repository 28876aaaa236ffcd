package io.jkompute;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.VK10.*;
import static org.lwjgl.vulkan.VK12.*;

import io.jkompute.internal.Timeline;
import io.jkompute.internal.TimelineWaits;
import io.jkompute.internal.VulkanDevice;
import io.jkompute.internal.WaitPolicy;
import java.nio.LongBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.system.MemoryUtil;
import org.lwjgl.vulkan.*;

/**
 * A command buffer on one queue, with the operations recorded into it. Record once, evaluate many times: each
 * {@link #eval()} of an unchanged sequence is one {@code vkQueueSubmit} and one wait; nothing is re-recorded.
 *
 * <p>Completion is tracked with a timeline semaphore, which also lets one sequence wait on the GPU for another
 * ({@link #waitFor}) without a round trip through the host, and gives {@link Point}s: the completion of one
 * submission, which the host can poll or await and which another sequence's next submission can wait for on the GPU
 * ({@link #nextWaitsFor}), so a stream of uploads, dispatches and read-backs overlaps frames. Like Kompute, a
 * {@link #record} after an evaluation starts a new recording: {@code record(A).record(B).eval(); record(C).eval()}
 * runs A, B and then C alone. Kompute's explicit markers work too: {@code begin(); record(...); end(); eval()}.
 *
 * <p>A sequence is meant for one thread at a time; its methods are synchronized so misuse fails cleanly.
 */
public final class Sequence extends ManagedObject {
    private static final Logging.Log LOG = Logging.logger(Sequence.class);

    private final VulkanDevice.Queue queue;
    private final int queueIndex;
    private final int timestampCapacity;
    private final Natives natives;
    private final List<Op> ops = new ArrayList<>();
    private final List<Sequence> waitFor = new ArrayList<>();
    private Tracked[] usedObjects = new Tracked[0];
    private Algorithm[] usedAlgorithms = new Algorithm[0];
    private int[] algorithmGenerations = new int[0];
    private boolean recording;
    private boolean ended;
    /**
     * submittedValue when the recording was last ended: an evaluation since then makes the next record start afresh.
     */
    private long endedAtValue;
    private volatile boolean running;
    private long submittedValue;
    private long submitNanos;
    /** How long the last evaluation took from submit to completion; HYBRID spins a little longer than that. */
    private long lastDurationNanos;
    private WaitStrategy waitStrategy = WaitStrategy.HYBRID;
    /** Points the next submission waits for ({@link #nextWaitsFor}): one entry per sequence, the highest value. */
    private final TimelineWaits<Sequence> pending = new TimelineWaits<>();
    /** Scratch for the waits of one submission, kept so a submission allocates nothing. */
    private final TimelineWaits<Sequence> deps = new TimelineWaits<>();
    /**
     * Guards {@link #pins}, {@link #closing} and the waiters. Not the sequence's monitor: a submission of another
     * sequence takes it while holding its own monitor, and two sequences may wait on each other.
     */
    private final Object waitersLock = new Object();
    /** Submissions of other sequences being made right now that wait on this semaphore: close() waits for them. */
    private int pins;
    private boolean closing;
    /** Sequences with a submission that waits on this one's semaphore, and the value of theirs that does. */
    private final TimelineWaits<Sequence> waiters = new TimelineWaits<>();
    /** A waiter still to drain: its sequence is open and the waiting submission not known complete. */
    private static final TimelineWaits.Live<Sequence> WAITING = (o, v) -> !o.isClosed() && v > o.reachedValue();

    /**
     * A point on a sequence's timeline: the completion of one of its submissions. Returned by {@link #point()} and by
     * {@link Tensor#syncDeviceAsync()} / {@link Tensor#syncLocalAsync()}; another sequence can wait for it on the GPU
     * ({@link #nextWaitsFor}) and the host can poll or await it, so work can overlap without host round trips.
     */
    public static final class Point {
        /** The point that is reached from the start: waiting for it does nothing. Its sequence is null. */
        public static final Point REACHED = new Point(null, 0);

        private final Sequence sequence;
        private final long value;

        Point(Sequence sequence, long value) {
            this.sequence = sequence;
            this.value = value;
        }

        /** The sequence whose timeline this point is on (null for {@link #REACHED}). */
        public Sequence sequence() {
            return sequence;
        }

        /** The timeline value: the sequence's n-th submission completes at value n. */
        public long value() {
            return value;
        }

        /**
         * Whether the submission completed. True for a point of a closed sequence too: closing waits for every
         * submission of the sequence.
         */
        public boolean isReached() {
            return sequence == null || sequence.reached(value);
        }

        /**
         * Waits without limit until the submission completed (spinning briefly first, as {@link WaitStrategy} says).
         */
        public void await() {
            if (sequence != null) {
                sequence.awaitValue(value, Long.MAX_VALUE);
            }
        }

        /** Waits at most {@code timeout}; returns whether the point was reached. */
        public boolean await(Duration timeout) {
            return sequence == null || sequence.awaitValue(value, Math.max(0, timeout.toNanos()));
        }

        @Override
        public String toString() {
            return sequence == null ? "Point(reached)" : "Point(" + sequence + " at " + value + ")";
        }
    }

    /** Native objects and the submit structures, made once so an evaluation allocates nothing. */
    private static final class Natives {
        final VulkanDevice dev;
        long pool;
        VkCommandBuffer cmd;
        /** The semaphore this sequence's submissions signal, and the waits on others' (see {@link Timeline}). */
        Timeline timeline;
        long queryPool;
        VkSubmitInfo submit;
        PointerBuffer commandBuffers;

        Natives(VulkanDevice dev) {
            this.dev = dev;
        }

        void destroy() {
            VkDevice d = dev.handle();
            if (queryPool != 0) vkDestroyQueryPool(d, queryPool, null);
            if (timeline != null) timeline.destroy();
            if (pool != 0) vkDestroyCommandPool(d, pool, null);
            queryPool = pool = 0;
            if (submit != null) {
                submit.free();
                MemoryUtil.memFree(commandBuffers);
                submit = null;
            }
        }
    }

    Sequence(Manager manager, int queueIndex, int totalTimestamps) {
        super(manager, "Sequence#" + manager.nextId() + " (queue " + queueIndex + ")");
        VulkanDevice dev = manager.device();
        if (queueIndex < 0 || queueIndex >= dev.queues().size()) {
            throw new IllegalArgumentException("queue index " + queueIndex + " is out of range: the Manager has "
                    + dev.queues().size() + " queue(s); give more family indices to the Manager for more queues");
        }
        if (totalTimestamps < 0) {
            throw new IllegalArgumentException("totalTimestamps must not be negative, got " + totalTimestamps);
        }
        this.queue = dev.queues().get(queueIndex);
        this.queueIndex = queueIndex;
        if (totalTimestamps > 0 && (!dev.properties().features().timestamps() || queue.timestampValidBits() == 0)) {
            throw new IllegalStateException("device " + dev.properties().name() + " does not support timestamps on queue family "
                    + queue.family());
        }
        this.timestampCapacity = totalTimestamps == 0 ? 0 : totalTimestamps + 1;
        this.natives = new Natives(dev);
        Natives n = natives;
        try (MemoryStack stack = stackPush()) {
            VkDevice d = dev.handle();
            LongBuffer lp = stack.mallocLong(1);
            check(vkCreateCommandPool(d, VkCommandPoolCreateInfo.calloc(stack).sType$Default()
                    .flags(VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT).queueFamilyIndex(queue.family()), null, lp),
                    "vkCreateCommandPool");
            n.pool = lp.get(0);
            PointerBuffer pp = stack.mallocPointer(1);
            check(vkAllocateCommandBuffers(d, VkCommandBufferAllocateInfo.calloc(stack).sType$Default().commandPool(n.pool)
                    .level(VK_COMMAND_BUFFER_LEVEL_PRIMARY).commandBufferCount(1), pp), "vkAllocateCommandBuffers");
            n.cmd = new VkCommandBuffer(pp.get(0), d);
            n.timeline = new Timeline(d);
            if (timestampCapacity > 0) {
                check(vkCreateQueryPool(d, VkQueryPoolCreateInfo.calloc(stack).sType$Default().queryType(VK_QUERY_TYPE_TIMESTAMP)
                        .queryCount(timestampCapacity), null, lp), "vkCreateQueryPool");
                n.queryPool = lp.get(0);
            }
        } catch (RuntimeException e) {
            n.destroy();
            throw e;
        }
        n.commandBuffers = MemoryUtil.memAllocPointer(1).put(0, n.cmd);
        n.submit = VkSubmitInfo.calloc().sType$Default().pCommandBuffers(n.commandBuffers);
        n.timeline.attach(n.submit);
        track(n::destroy);
    }

    /** Which of the Manager's queues this sequence submits to. */
    public int queueIndex() {
        return queueIndex;
    }

    /**
     * Records an operation (starting a new recording if the last one was evaluated). Chainable.
     *
     * @throws IllegalStateException while running, or if this or a tensor of the operation is closed
     * @throws IllegalArgumentException if the operation uses objects of another Manager
     */
    public synchronized Sequence record(Op op) {
        checkOpen();
        if (op == null) {
            throw new IllegalArgumentException("record: op is null");
        }
        checkNotRunning("record");
        for (Memory m : op.memories()) {
            manager.checkOwned(m, "record");
        }
        if (op.algorithm() != null) {
            manager.checkOwned(op.algorithm());
        }
        if (!recording) {
            openRecording();
        }
        ops.add(op);
        recordOne(op, ops.size());
        updateUsage();
        return this;
    }

    /** Records several operations in order. */
    public Sequence record(Op... ops) {
        for (Op o : ops) {
            record(o);
        }
        return this;
    }

    /**
     * Starts a recording explicitly (Kompute's {@code begin()}); optional, since {@link #record} starts one when none
     * is open. After an evaluation it starts afresh, as {@code record} does; while a recording is open it does nothing.
     *
     * @throws IllegalStateException while running, or if closed
     */
    public synchronized Sequence begin() {
        checkOpen();
        checkNotRunning("begin");
        if (recording) {
            LOG.debug("begin() on {} which is already recording: nothing to do", this);
            return this;
        }
        openRecording();
        return this;
    }

    /**
     * Finishes the recording (Kompute's {@code end()}); optional, since {@link #eval} finishes it. A {@code record}
     * after {@code end()} and before an evaluation reopens the recording and keeps what was recorded. Without an open
     * recording it only logs a warning, as Kompute does.
     *
     * @throws IllegalStateException while running, or if closed
     */
    public synchronized Sequence end() {
        checkOpen();
        checkNotRunning("end");
        if (!recording) {
            LOG.warn("end() on {} which is not recording: nothing to do", this);
            return this;
        }
        try (MemoryStack stack = stackPush()) {
            new CommandRecorder(natives.cmd, stack).beforeHost();
        }
        check(vkEndCommandBuffer(natives.cmd), "vkEndCommandBuffer");
        recording = false;
        ended = true;
        endedAtValue = submittedValue;
        return this;
    }

    /**
     * Opens a recording with the stored operations re-recorded; after an evaluation of the last recording the stored
     * operations are dropped first (Kompute: {@code record(A).eval(); record(C).eval()} runs C alone).
     */
    private void openRecording() {
        if (ended && submittedValue != endedAtValue) {
            ops.clear();
        }
        ended = false;
        beginCommandBuffer();
        for (int i = 0; i < ops.size(); i++) {
            recordOne(ops.get(i), i + 1);
        }
    }

    private void beginCommandBuffer() {
        try (MemoryStack stack = stackPush()) {
            check(vkResetCommandBuffer(natives.cmd, 0), "vkResetCommandBuffer");
            check(vkBeginCommandBuffer(natives.cmd, VkCommandBufferBeginInfo.calloc(stack).sType$Default()), "vkBeginCommandBuffer");
            if (timestampCapacity > 0) {
                vkCmdResetQueryPool(natives.cmd, natives.queryPool, 0, timestampCapacity);
                vkCmdWriteTimestamp(natives.cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, natives.queryPool, 0);
            }
        }
        recording = true;
    }

    /** Records one operation and, when timestamps are on, the timestamp after it (slot {@code index}). */
    private void recordOne(Op op, int index) {
        try (MemoryStack stack = stackPush()) {
            op.record(new CommandRecorder(natives.cmd, stack));
        }
        if (timestampCapacity > 0 && index < timestampCapacity) {
            vkCmdWriteTimestamp(natives.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, natives.queryPool, index);
        }
    }

    /** The objects to check before each submit, and the algorithm generations the recording reflects. */
    private void updateUsage() {
        Map<Tracked, Boolean> seen = new IdentityHashMap<>();
        List<Algorithm> algos = new ArrayList<>();
        for (Op o : ops) {
            for (Memory m : o.memories()) {
                seen.put(m.tracked, true);
            }
            Algorithm a = o.algorithm();
            if (a != null && !algos.contains(a)) {
                algos.add(a);
                seen.put(a.tracked, true);
            }
        }
        usedObjects = seen.keySet().toArray(new Tracked[0]);
        usedAlgorithms = algos.toArray(new Algorithm[0]);
        algorithmGenerations = new int[usedAlgorithms.length];
        for (int i = 0; i < usedAlgorithms.length; i++) {
            algorithmGenerations[i] = usedAlgorithms[i].generation();
        }
    }

    /** Records every stored operation again, e.g. after {@link Algorithm#rebuild}. */
    public synchronized Sequence rerecord() {
        checkOpen();
        checkNotRunning("rerecord");
        recording = false;
        ended = false;
        beginCommandBuffer();
        for (int i = 0; i < ops.size(); i++) {
            recordOne(ops.get(i), i + 1);
        }
        updateUsage();
        return this;
    }

    /** Forgets all operations. */
    public synchronized Sequence clear() {
        checkOpen();
        checkNotRunning("clear");
        if (recording) {
            check(vkEndCommandBuffer(natives.cmd), "vkEndCommandBuffer");
        }
        ops.clear();
        recording = false;
        ended = false;
        updateUsage();
        return this;
    }

    /**
     * Makes this sequence's next evaluations wait, on the GPU, for the latest evaluation of {@code other} submitted
     * before them; no host round trip. Chainable.
     */
    public synchronized Sequence waitFor(Sequence other) {
        checkOpen();
        if (other == this) {
            throw new IllegalArgumentException("a sequence cannot wait for itself");
        }
        manager.checkOwned(other);
        if (!waitFor.contains(other)) {
            waitFor.add(other);
        }
        return this;
    }

    /** Drops every {@link #waitFor} dependency, and the {@link #nextWaitsFor} points not yet used. */
    public synchronized Sequence clearWaits() {
        waitFor.clear();
        pending.clear();
        return this;
    }

    /**
     * Makes only the next submission of this sequence wait, on the GPU, until {@code point} is reached: the host
     * does not wait, so an upload, a dispatch and a read-back can be submitted back to back and overlap with the
     * frames before them. A point already reached, {@link Point#REACHED} and a point of this sequence itself add no
     * wait (this sequence's own work is ordered by its barriers). Chainable.
     *
     * @throws IllegalStateException if this sequence, or the point's sequence, is closed: a closed sequence's
     *     semaphore is gone, so nothing can wait on it (its work completed when it closed)
     * @throws IllegalArgumentException if the point is of another Manager's sequence
     */
    public synchronized Sequence nextWaitsFor(Point point) {
        checkOpen();
        java.util.Objects.requireNonNull(point, "point");
        Sequence s = point.sequence;
        if (s == null || s == this) {
            return this;
        }
        if (s.isClosed()) {
            throw new IllegalStateException("nextWaitsFor: " + s + " is closed, so its timeline can no longer be waited"
                    + " on (point " + point.value + "); its work completed before it closed: drop the wait");
        }
        manager.checkOwned(s);
        if (point.value <= s.reachedValue()) {
            return this;
        }
        pending.add(s, point.value, null);
        return this;
    }

    /**
     * The point of the latest submission ({@link Point#REACHED} before the first): reached when that evaluation has
     * completed on the GPU.
     */
    public synchronized Point point() {
        return submittedValue == 0 ? Point.REACHED : new Point(this, submittedValue);
    }

    /** Submits and waits. */
    public Sequence eval() {
        evalAsync();
        evalAwait();
        return this;
    }

    /** Clears, records {@code ops} and evaluates them. */
    public Sequence eval(Op... ops) {
        synchronized (this) {
            clear();
            record(ops);
        }
        return eval();
    }

    /** Clears, records {@code ops} and submits them; finish with {@link #evalAwait()}. */
    public synchronized Sequence evalAsync(Op... ops) {
        clear();
        record(ops);
        return evalAsync();
    }

    /**
     * Submits what was recorded and returns at once. Re-records first if an algorithm was rebuilt or given new push
     * constants since recording.
     *
     * @throws IllegalStateException if still running (await first) or an object it uses was closed
     */
    public synchronized Sequence evalAsync() {
        checkOpen();
        if (running) {
            throw new IllegalStateException("evalAsync on " + this + " while its previous evaluation is still running:"
                    + " call evalAwait() first");
        }
        // From the check that every object it uses is open until the submission counts as running, no tensor, image
        // or algorithm may be freed: Manager.release waits for the GPU only for submissions already made, so a close
        // on another thread in between freed a buffer or pipeline that the submission then used (a GPU fault,
        // VK_ERROR_DEVICE_LOST, on real hardware). Releases take this lock's write side.
        java.util.concurrent.locks.Lock submitting = manager.submitting();
        submitting.lock();
        try {
            // under the lock: a Manager closing on another thread frees nothing until this submission is made, and
            // once it has begun closing this fails here
            manager.checkAccepting();
            return submitChecked();
        } finally {
            submitting.unlock();
        }
    }

    private Sequence submitChecked() {
        for (Tracked t : usedObjects) {
            if (t.isClosed()) {
                throw new IllegalStateException(this + " uses " + t.description + ", which is closed");
            }
        }
        for (int i = 0; i < usedAlgorithms.length; i++) {
            if (usedAlgorithms[i].generation() != algorithmGenerations[i]) {
                LOG.debug("{} re-records: {} changed since it was recorded", this, usedAlgorithms[i]);
                rerecord();
                break;
            }
        }
        if (recording) {
            end();
        } else if (!ended) {
            begin();
            end();
        }
        manager.initBatch().flush();
        for (int i = 0, n = ops.size(); i < n; i++) {
            ops.get(i).preEval();
        }
        long value = submittedValue + 1;
        natives.timeline.signalNext(value);
        int n = collectWaits();
        boolean submitted = false;
        try {
            if (n == 0) {
                natives.timeline.clearWaits(natives.submit);
            } else {
                natives.timeline.reserveWaits(n);
                for (int i = 0; i < n; i++) {
                    natives.timeline.setWait(i, deps.owner(i).natives.timeline, deps.value(i));
                }
                natives.timeline.applyWaits(natives.submit, n);
            }
            submit();
            submitted = true;
        } finally {
            for (int i = 0; i < n; i++) {
                deps.owner(i).unpin(this, submitted ? value : 0);
            }
            deps.clear();
            if (n > 0) {
                natives.timeline.clearWaits(natives.submit);
            }
        }
        pending.clear();
        submittedValue = value;
        submitNanos = System.nanoTime();
        running = true;
        manager.runningChanged(+1);
        return this;
    }

    /**
     * Fills {@link #deps} with the semaphores the next submission waits on (the {@link #waitFor} sequences'
     * latest submissions and the {@link #nextWaitsFor} points not yet reached), each pinned so it cannot be destroyed
     * before the submission is made; returns how many. A pending point whose sequence closed meanwhile is dropped:
     * closing waited for its work.
     */
    private int collectWaits() {
        try {
            for (int i = 0, m = waitFor.size(); i < m; i++) {
                Sequence s = waitFor.get(i);
                long v = s.submittedValue;
                if (v > 0 && v > s.reachedValue()) {
                    if (!s.pin()) {
                        s.checkOpen();
                        throw new IllegalStateException(s + " is closing");
                    }
                    addDep(s, v);
                }
            }
            for (int i = 0, m = pending.size(); i < m; i++) {
                Sequence s = pending.owner(i);
                long v = pending.value(i);
                if (v > s.reachedValue() && s.pin()) {
                    addDep(s, v);
                }
            }
        } catch (RuntimeException e) {
            for (int i = 0, m = deps.size(); i < m; i++) {
                deps.owner(i).unpin(this, 0);
            }
            deps.clear();
            throw e;
        }
        return deps.size();
    }

    private void addDep(Sequence s, long v) {
        if (!deps.add(s, v, null)) {
            s.unpin(this, 0);   // pinned once already for this submission
        }
    }

    /** Pins this semaphore for a submission of another sequence that is about to wait on it; false once closing. */
    private boolean pin() {
        synchronized (waitersLock) {
            if (closing || isClosed()) {
                return false;
            }
            pins++;
            return true;
        }
    }

    /**
     * Ends a pin; when the waiting submission was made ({@code waiterValue > 0}), remembers it, so {@link #close()}
     * can drain it before destroying the semaphore it waits on.
     */
    private void unpin(Sequence waiter, long waiterValue) {
        synchronized (waitersLock) {
            if (waiterValue > 0) {
                addWaiter(waiter, waiterValue);
            }
            if (--pins == 0) {
                waitersLock.notifyAll();
            }
        }
    }

    private void addWaiter(Sequence w, long v) {
        // when full, first drop waiters that closed (they drained themselves) or whose waiting submission completed
        waiters.add(w, v, WAITING);
    }

    /** Whether the semaphore reached {@code value}; a closed sequence has drained, so everything it submitted is. */
    boolean reached(long value) {
        if (value <= reachedValue()) {
            return true;
        }
        synchronized (this) {
            return isClosed() || natives.timeline.reached(value);
        }
    }

    /** The highest value this sequence's semaphore is known to have reached; readable without the lock. */
    private long reachedValue() {
        return natives.timeline.reachedValue();
    }

    /** Waits at most {@code timeoutNanos} for {@code value}; true when reached (at once for a closed sequence). */
    boolean awaitValue(long value, long timeoutNanos) {
        if (value <= reachedValue()) {
            return true;
        }
        synchronized (this) {
            if (isClosed()) {
                return true;
            }
            if (value > submittedValue) {
                throw new IllegalStateException(this + " never submitted value " + value + " (latest " + submittedValue + ")");
            }
            return waitForValue(value, timeoutNanos);
        }
    }

    private void submit() {
        int r;
        synchronized (queue) {
            r = vkQueueSubmit(queue.handle(), natives.submit, VK_NULL_HANDLE);
        }
        check(r, "vkQueueSubmit");
    }

    /** Waits without limit for the running evaluation, then runs the operations' host-side completion. */
    public Sequence evalAwait() {
        evalAwait(null);
        return this;
    }

    /**
     * Waits at most {@code timeout} for the running evaluation.
     *
     * @return true when it completed (or nothing was running); false on timeout, when the sequence is still running
     *     and can be awaited again
     */
    public synchronized boolean evalAwait(Duration timeout) {
        checkOpen();
        if (!running) {
            LOG.debug("evalAwait on {} which is not running", this);
            return true;
        }
        long limit = timeout == null ? Long.MAX_VALUE : Math.max(0, timeout.toNanos());
        if (submittedValue > reachedValue() && !waitForValue(submittedValue, limit)) {
            return false;
        }
        lastDurationNanos = System.nanoTime() - submitNanos;
        running = false;
        manager.runningChanged(-1);
        for (int i = 0, n = ops.size(); i < n; i++) {
            ops.get(i).postEval();
        }
        return true;
    }

    private boolean waitForValue(long value, long timeoutNanos) {
        long spin = WaitPolicy.spinNanos(waitStrategy, timeoutNanos, lastDurationNanos, System.nanoTime() - submitNanos);
        return natives.timeline.await(value, timeoutNanos, spin);
    }

    private void checkNotRunning(String what) {
        if (running) {
            throw new IllegalStateException(what + " on " + this + " while it is running: call evalAwait() first");
        }
    }

    /** Whether a recording is open (operations recorded, not yet evaluated). */
    public synchronized boolean isRecording() {
        return recording;
    }

    /** Whether an evaluation was submitted and not yet awaited. */
    public boolean isRunning() {
        return running;
    }

    /** The recorded operations, in order. */
    public synchronized List<Op> operations() {
        return List.copyOf(ops);
    }

    /**
     * Sets how {@link #evalAwait} waits for the GPU ({@link WaitStrategy#HYBRID} by default); returns this sequence.
     */
    public synchronized Sequence setWaitStrategy(WaitStrategy strategy) {
        this.waitStrategy = java.util.Objects.requireNonNull(strategy);
        return this;
    }

    /** How {@link #evalAwait} waits for the GPU. */
    public synchronized WaitStrategy waitStrategy() {
        return waitStrategy;
    }

    /**
     * GPU timestamps of the last evaluation, in device ticks: one at the start and one after each operation (at most
     * totalTimestamps of them). Multiply differences by {@link DeviceProperties.Limits#timestampPeriodNanos()}.
     *
     * @throws IllegalStateException if the sequence was made without timestamps, or is running
     */
    public synchronized long[] getTimestamps() {
        checkOpen();
        if (timestampCapacity == 0) {
            throw new IllegalStateException("timestamps are not enabled on " + this
                    + ": create it with Manager.sequence(queueIndex, totalTimestamps > 0)");
        }
        checkNotRunning("getTimestamps");
        int n = Math.min(ops.size() + 1, timestampCapacity);
        try (MemoryStack stack = stackPush()) {
            LongBuffer out = stack.mallocLong(n);
            check(vkGetQueryPoolResults(natives.dev.handle(), natives.queryPool, 0, n, out, 8,
                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT), "vkGetQueryPoolResults");
            long[] r = new long[n];
            out.get(r);
            return r;
        }
    }

    /**
     * Waits for a running evaluation and for the submissions of other sequences that wait on this one's semaphore
     * ({@link #waitFor}, {@link #nextWaitsFor}), then frees the command buffer, semaphore and query pool: a semaphore
     * must outlive every submission that waits on it.
     */
    @Override
    public void close() {
        if (isClosed()) {
            return;
        }
        drain();
        synchronized (this) {
            super.close();
        }
    }

    /**
     * Frees this sequence for its closing Manager, under this sequence's lock: a thread recording into it or
     * waiting on it (the device is idle, so a wait ends) finishes first.
     */
    void closeForManager() {
        if (isClosed()) {
            return;
        }
        drain();
        synchronized (this) {
            tracked.closeOnce();
        }
    }

    /** Waits for this sequence's evaluation and for the submissions of others that wait on its semaphore. */
    private void drain() {
        synchronized (this) {
            if (running) {
                try {
                    evalAwait();
                } catch (RuntimeException e) {
                    LOG.warn("{}: waiting before close failed: {}", this, e.getMessage());
                }
            }
        }
        Sequence[] ws;
        long[] vs;
        int n;
        boolean interrupted = false;
        synchronized (waitersLock) {
            closing = true;
            while (pins > 0) {
                try {
                    waitersLock.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            n = waiters.size();
            ws = new Sequence[n];
            vs = new long[n];
            for (int i = 0; i < n; i++) {
                ws[i] = waiters.owner(i);
                vs[i] = waiters.value(i);
            }
            waiters.clear();
        }
        for (int i = 0; i < n; i++) {
            try {
                ws[i].awaitValue(vs[i], Long.MAX_VALUE);
            } catch (RuntimeException e) {
                LOG.warn("{}: waiting for {} before close failed: {}", this, ws[i], e.getMessage());
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
