package io.jkompute.graph.internal;

import java.util.function.BooleanSupplier;

/**
 * Agrona-style back-off before blocking: spin briefly, then yield, and only then let the caller park. A thread
 * hand-off through park/unpark costs tens of µs; most hand-offs in a pipeline come within a few µs.
 */
public final class BackoffIdle {
    /** Looks between spins before yielding. */
    public static final int SPINS = 200;
    /** Looks between yields before the caller parks. */
    public static final int YIELDS = 20;

    private BackoffIdle() {
    }

    /** Returns true as soon as {@code done} holds, false if it still does not after the back-off. */
    public static boolean await(BooleanSupplier done) {
        for (int i = 0; i < SPINS; i++) {
            if (done.getAsBoolean()) {
                return true;
            }
            Thread.onSpinWait();
        }
        for (int i = 0; i < YIELDS; i++) {
            if (done.getAsBoolean()) {
                return true;
            }
            Thread.yield();
        }
        return done.getAsBoolean();
    }
}
