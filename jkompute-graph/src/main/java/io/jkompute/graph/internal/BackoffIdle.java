package io.jkompute.graph.internal;

import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Agrona-style back-off before blocking: spin briefly, then yield, and only then let the caller park. A thread
 * hand-off through park/unpark costs tens of µs; most hand-offs in a pipeline come within a few µs.
 */
public final class BackoffIdle {
    /** Looks between spins before yielding. */
    private static final int SPINS = 200;
    /** Looks between yields before the caller parks. */
    private static final int YIELDS = 20;
    private static final IntSupplier NO_WORK = () -> 0;

    private BackoffIdle() {
    }

    /** Returns true as soon as {@code done} holds, false if it still does not after the back-off. */
    public static boolean await(BooleanSupplier done) {
        return await(done, NO_WORK, 0);
    }

    /**
     * As {@link #await(BooleanSupplier)}, doing {@code work} before every look (a graph's pollers): when it finds some,
     * the back-off starts over, and once the back-off is over the caller still yields until {@code spinNs} have
     * passed since the last work found.
     */
    public static boolean await(BooleanSupplier done, IntSupplier work, long spinNs) {
        long since = spinNs > 0 ? System.nanoTime() : 0;
        int idleRounds = 0;
        while (true) {
            int found = work.getAsInt();
            if (done.getAsBoolean()) {
                return true;
            }
            if (found > 0) {
                since = spinNs > 0 ? System.nanoTime() : 0;
                idleRounds = 0;
            } else if (++idleRounds <= SPINS) {
                Thread.onSpinWait();
            } else if (idleRounds <= SPINS + YIELDS || (spinNs > 0 && System.nanoTime() - since < spinNs)) {
                Thread.yield(); // on a machine with fewer cores than busy threads, the other side may need this core
            } else {
                return false;
            }
        }
    }
}
