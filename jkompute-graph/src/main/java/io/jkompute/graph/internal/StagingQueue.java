package io.jkompute.graph.internal;

import io.jkompute.graph.Message;
import io.jkompute.graph.QueuePolicy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * GXF's staging queue: a back stage writers push into and a main stage the owner reads, each at most
 * {@code capacity} messages, with GXF's overflow policies (0 POP drops the oldest, 1 REJECT drops the newest, both
 * counted in {@link #dropped()} and released; 2 FAULT throws {@link Overflow} and takes nothing).
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>{@link #push} from any number of threads at once (the upstream entities of a fan-in, each on whatever
 *       worker runs it, or a network receive thread).</li>
 *   <li>{@link #sync}, {@link #pop}, {@link #peek} only from the owner: the entity holding the queue, which GXF and
 *       every scheduler here run on one thread at a time (the worker that claimed it; the claim's CAS hands the main
 *       stage from one worker to the next).</li>
 *   <li>{@link #size}, {@link #backSize}, {@link #peekBack}, {@link #dropped} from any thread: the scheduling terms of
 *       other entities read them ({@code DownstreamReceptiveSchedulingTerm}, a network transmitter's room).</li>
 * </ul>
 * No lock is taken on any path.
 *
 * <h2>Back stage: a bounded multi-producer ring with per-slot sequence numbers</h2>
 * Dmitry Vyukov's bounded MPMC array queue: positions grow without end ({@code long}), slot {@code p & mask} carries
 * a sequence number saying whose turn it is ({@code p}: free for the producer of position {@code p};
 * {@code p + 1}: holds that producer's message; {@code p + ring}: taken, free for the producer of the next lap).
 * Producers claim a position with one CAS on {@code tail}, consumers claim with a CAS on {@code head}. Changes to the
 * textbook version, which GXF's semantics need:
 * <ul>
 *   <li><b>Exact capacity.</b> The ring is a power of two ≥ capacity (and ≥ 2), and a producer claims position
 *       {@code t} only while {@code t − head < capacity}; when it reads {@code head} after {@code t},
 *       {@code t − head ≥ capacity} proves the stage was full at that instant, so REJECT and FAULT are decided
 *       exactly as under a lock.</li>
 *   <li><b>POP evicts from the producer side.</b> A producer finding the stage full takes the oldest message itself
 *       (a consumer's CAS on {@code head}), drops it and tries again; hence multi-consumer slots, although the owner
 *       is the only regular reader. Under the lock every push into a full stage dropped exactly one message; here an
 *       evicting producer may lose the freed place to another producer and evict again, but every eviction is of the
 *       then-oldest message and the stage still ends up holding the newest arrivals, so drop counts and contents
 *       match a serial order of the same pushes.</li>
 *   <li><b>Batch claim.</b> {@link #sync} claims everything pushed so far with a single CAS ({@code head: h → t}) and
 *       then moves the messages in order; a slot claimed by a producer that has not yet stored its message is waited
 *       for (spin, then yield: the producer is between two stores), as JCTools' MPSC queues do, so a message that
 *       {@link #backSize} counted is never skipped by the sync that follows.</li>
 * </ul>
 *
 * <h2>Counts the scheduling terms read</h2>
 * {@code backSize = tail − head} counts claimed positions, so it includes pushes in flight (they linearized at their
 * CAS). {@code size} is a published copy of the owner's main-stage count. {@link #sync} publishes the grown main
 * count <em>before</em> its CAS on {@code head} removes the messages from the back stage, and {@link #backSize} reads
 * {@code head} first: a reader taking {@code backSize()} then {@code size()} (as back-pressure does) may count a
 * moving message twice, never zero times, so it errs towards "full", never towards overflowing a FAULT queue.
 * Likewise a dropped message is added to {@link #dropped()} before it leaves either stage, so pushed − popped −
 * dropped never exceeds what a reader sees (the concurrent test checks exactly this).
 *
 * <h2>Why not a library queue</h2>
 * Agrona's {@code ManyToOneConcurrentArrayQueue} (on the tree through jkompute-net's Aeron) and JCTools'
 * {@code MpscArrayQueue} round the capacity up to a power of two (GXF's capacity is exact: capacity 3 holds 3), let
 * only the single consumer remove (POP needs a producer to evict the oldest), and cannot peek at an index
 * ({@code peekBack(i)}: {@code ExpiringMessageAvailableSchedulingTerm}, network receivers, tests). Wrapping them
 * would need a side counter and a lock for POP, which is the lock this class removes; the ring is about 60 lines.
 *
 * <p>Both stages are preallocated, as GXF's staging queue is, so the capacity is limited to {@link #MAX_CAPACITY}.
 * The main stage is an ordinary array ring only the owner touches.
 */
public final class StagingQueue {
    /** Largest capacity: both stages are preallocated (about 16 bytes per place and stage at this size). */
    public static final int MAX_CAPACITY = 1 << 20;

    /** Thrown when the fault policy refuses a message; the caller turns it into a named error. */
    public static final class Overflow extends RuntimeException {
        public Overflow(String message) {
            super(message, null, false, false);
        }
    }

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle DROPPED;
    private static final VarHandle MAIN_SIZE;
    private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Message[].class);

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(StagingQueue.class, "head", long.class);
            TAIL = l.findVarHandle(StagingQueue.class, "tail", long.class);
            DROPPED = l.findVarHandle(StagingQueue.class, "dropped", long.class);
            MAIN_SIZE = l.findVarHandle(StagingQueue.class, "mainSize", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int capacity;
    private final QueuePolicy policy;

    // back stage
    private final Message[] ring;
    private final long[] seq;
    private final int mask;
    /** Next position to take; advanced by CAS (the owner's sync, a POP-evicting producer). */
    private volatile long head;
    /** Next position to fill; advanced by CAS (producers). */
    private volatile long tail;
    private volatile long dropped;

    // main stage: the owner's only, except the published count
    private final Message[] main;
    private int mainHead;
    private int mainCount;
    /** {@link #mainCount} for other threads' scheduling terms. */
    private volatile int mainSize;

    public StagingQueue(int capacity, QueuePolicy policy) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be between 1 and " + MAX_CAPACITY + ", got " + capacity);
        }
        this.capacity = capacity;
        this.policy = policy;
        // a power of two ≥ capacity, and at least 2: with one slot, "holds position p's message" (p + 1) and "free for
        // the producer of position p + 1" (p + ring) would be the same sequence number, so a push could overwrite a
        // message a sync had claimed but not yet taken
        int ringSize = Math.max(2, Integer.highestOneBit(capacity) == capacity ? capacity
                : Integer.highestOneBit(capacity) << 1);
        this.ring = new Message[ringSize];
        this.seq = new long[ringSize];
        for (int i = 0; i < ringSize; i++) {
            seq[i] = i;
        }
        this.mask = ringSize - 1;
        this.main = new Message[capacity];
    }

    public int capacity() {
        return capacity;
    }

    public QueuePolicy policy() {
        return policy;
    }

    /** Pushes into the back stage (any thread); on overflow applies the policy. Dropped messages are released. */
    public void push(Message m) {
        long t = tail;
        while (true) {
            long h = head; // read after t: t − h ≥ capacity means the stage was full when h was read
            if (t - h >= capacity) {
                switch (policy) {
                    case REJECT -> {
                        DROPPED.getAndAdd(this, 1L);
                        m.release();
                        return;
                    }
                    case FAULT -> throw new Overflow("back stage full (" + (t - h) + " of capacity " + capacity + ")");
                    case POP -> {
                        // counted before it leaves, so pushed − popped − dropped never exceeds what a reader sees
                        DROPPED.getAndAdd(this, 1L);
                        if (HEAD.compareAndSet(this, h, h + 1)) {
                            take(h).release();
                        } else {
                            DROPPED.getAndAdd(this, -1L);
                        }
                        t = tail;
                        continue;
                    }
                }
            }
            if (TAIL.compareAndSet(this, t, t + 1)) {
                break;
            }
            t = tail;
        }
        int i = (int) t & mask;
        // the previous lap's message here is claimed (t − ring < head) but its taker may not have cleared it yet
        await(i, t);
        ring[i] = m;
        SEQ.setRelease(seq, i, t + 1);
    }

    /**
     * Moves the back stage into the main stage (owner only); overflow (main + back > capacity) applies the policy:
     * POP drops the oldest (main stage first, then the back stage's head), REJECT the newest arrivals, FAULT throws
     * and moves nothing.
     */
    public void sync() {
        long h;
        long t;
        while (true) {
            h = head;
            t = tail;
            int n = (int) (t - h);
            if (n == 0) {
                return;
            }
            if (policy == QueuePolicy.FAULT && mainCount + n > capacity) {
                throw new Overflow("main stage full (" + mainCount + " + " + n + " arriving, capacity " + capacity + ")");
            }
            // publish the grown main count and the drops first: a concurrent reader of backSize() then size()
            // double-counts a moving message, never misses it
            int excess = Math.max(0, mainCount + n - capacity);
            MAIN_SIZE.setRelease(this, mainCount + n - excess);
            if (excess > 0) {
                DROPPED.getAndAdd(this, (long) excess);
            }
            if (HEAD.compareAndSet(this, h, t)) {
                break;
            }
            // a POP-evicting producer took the head first: undo and look again
            MAIN_SIZE.setRelease(this, mainCount);
            if (excess > 0) {
                DROPPED.getAndAdd(this, (long) -excess);
            }
        }
        for (long p = h; p < t; p++) {
            Message m = take(p);
            if (mainCount == capacity) { // counted in dropped above
                if (policy == QueuePolicy.POP) {
                    removeMainHead().release();
                } else { // REJECT: the newest arrivals go
                    m.release();
                    continue;
                }
            }
            main[index(mainCount)] = m;
            mainCount++;
        }
        // mainCount now equals the count published above
    }

    /** Removes the oldest main-stage message (owner only), or returns null. */
    public Message pop() {
        if (mainCount == 0) {
            return null;
        }
        Message m = removeMainHead();
        MAIN_SIZE.setRelease(this, mainCount);
        return m;
    }

    /** Messages in the main stage (any thread). */
    public int size() {
        return (int) MAIN_SIZE.getAcquire(this);
    }

    /** Messages pushed and not yet synced, including pushes in flight on other threads (any thread). */
    public int backSize() {
        long h = head;
        long t = tail; // read second, so t ≥ h
        return (int) Math.min(capacity, t - h);
    }

    /** The main-stage message at {@code index} (0 = oldest), or null (owner only). */
    public Message peek(int index) {
        return index < 0 || index >= mainCount ? null : main[index(index)];
    }

    /**
     * The back-stage message at {@code index} (0 = oldest), or null (any thread; from another thread than the owner
     * the answer may be out of date as soon as it is returned, as it was under a lock).
     */
    public Message peekBack(int index) {
        int spins = 0;
        while (true) {
            long h = head;
            long t = tail;
            if (index < 0 || index >= t - h) {
                return null;
            }
            long p = h + index;
            int i = (int) p & mask;
            long s = (long) SEQ.getAcquire(seq, i);
            if (s == p + 1) {
                Message m = (Message) SLOT.getAcquire(ring, i);
                if (m != null && (long) SEQ.getAcquire(seq, i) == p + 1) {
                    return m; // still position p's message: the slot was not taken and refilled meanwhile
                }
            }
            backoff(spins++); // pushed but not stored yet, or taken meanwhile: look again
        }
    }

    /** Messages dropped by the POP or REJECT policy so far (any thread). */
    public long dropped() {
        return dropped;
    }

    /** Empties both stages, releasing everything; returns how many were left (owner, with no producer running). */
    public int clear() {
        int left = 0;
        Message m;
        while ((m = pop()) != null) {
            m.release();
            left++;
        }
        while (true) {
            long h = head;
            long t = tail;
            if (h == t) {
                return left;
            }
            if (HEAD.compareAndSet(this, h, t)) {
                for (long p = h; p < t; p++) {
                    take(p).release();
                    left++;
                }
            }
        }
    }

    /** Takes position {@code p}'s message after winning the CAS that moved {@code head} past it. */
    private Message take(long p) {
        int i = (int) p & mask;
        await(i, p + 1); // its producer claimed p before head could pass it; wait for its store
        Message m = ring[i];
        ring[i] = null;
        SEQ.setRelease(seq, i, p + ring.length); // free for the producer of the next lap
        return m;
    }

    /** Waits until slot {@code i} carries {@code expected}: another thread is between its claim and its store. */
    private void await(int i, long expected) {
        int spins = 0;
        while ((long) SEQ.getAcquire(seq, i) != expected) {
            backoff(spins++);
        }
    }

    /** Spin briefly, then yield (on a loaded machine the thread we wait for may need our core), then park. */
    private static void backoff(int spins) {
        if (spins < 100) {
            Thread.onSpinWait();
        } else if (spins < 1_000) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(10_000);
        }
    }

    private Message removeMainHead() {
        Message m = main[mainHead];
        main[mainHead] = null;
        mainHead = mainHead + 1 == capacity ? 0 : mainHead + 1;
        mainCount--;
        return m;
    }

    private int index(int offset) {
        int i = mainHead + offset;
        return i >= capacity ? i - capacity : i;
    }
}
