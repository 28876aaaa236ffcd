package io.jkompute.net;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.agrona.concurrent.IdleStrategy;

/**
 * How a link thread waits when it has nothing to do: spin, then yield, then park with a timeout that doubles up to
 * a maximum (Agrona's {@link org.agrona.concurrent.BackoffIdleStrategy}), except that another thread can end the park at once with
 * {@link #wake()}. Work that an Aeron poll finds (a chunk, a credit) cannot wake a parked thread, so the park
 * timeout still bounds that latency; work made by this process (a place freed in the receiving queue, a credit
 * that the sender waits for) wakes the waiter instead of waiting out its park, which on a VM is 50 µs or more
 * even for a 1 µs request (timer slack).
 *
 * <p>One thread idles on an instance; any thread may wake it.
 */
final class LinkIdle implements IdleStrategy {
    private final int maxSpins;
    private final int maxYields;
    private final long minParkNs;
    private final long maxParkNs;
    private final BooleanSupplier pending;
    private final long busyNs;

    private long busySince;
    private int spins;
    private int yields;
    private long parkNs;
    private volatile Thread parked;

    /**
     * @param pending work that a waker signals: checked after announcing the park, so a wake-up that comes between
     *                the caller's last look and the park is not lost
     */
    LinkIdle(int maxSpins, int maxYields, long minParkNs, long maxParkNs, BooleanSupplier pending) {
        this(maxSpins, maxYields, minParkNs, maxParkNs, 0, pending);
    }

    /**
     * @param busyNs if positive, spin this long after the last work (UcxContext's {@code busy_poll_us}) before
     *               yielding and parking: a core kept busy per waiting thread, for the latency of a spinning poll
     */
    LinkIdle(int maxSpins, int maxYields, long minParkNs, long maxParkNs, long busyNs, BooleanSupplier pending) {
        this.busyNs = busyNs;
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNs = minParkNs;
        this.maxParkNs = maxParkNs;
        this.pending = pending;
        reset();
    }

    /** After a loop that did {@code work} things: start over when it did some, else wait a step longer. */
    @Override
    public void idle(int work) {
        if (work > 0) {
            reset();
        } else {
            idle();
        }
    }

    @Override
    public void idle() {
        if (busyNs > 0 && spins == 0 && yields == 0 && parkNs == minParkNs) {
            if (busySince == 0) {
                busySince = System.nanoTime();
            }
            if (System.nanoTime() - busySince < busyNs) {
                Thread.onSpinWait();
                return;
            }
        }
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            parked = Thread.currentThread();
            // volatile write, then read of the waker's state: the waker writes its state, then reads parked, so
            // at least one of the two sees the other
            if (!pending.getAsBoolean()) {
                LockSupport.parkNanos(this, parkNs);
            }
            parked = null;
            parkNs = Math.min(parkNs * 2, maxParkNs);
        }
    }

    @Override
    public void reset() {
        busySince = 0;
        spins = 0;
        yields = 0;
        parkNs = minParkNs;
    }

    /** Ends the idling thread's park now, if it is parked (cheap when it is not: one volatile read). */
    void wake() {
        Thread t = parked;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
