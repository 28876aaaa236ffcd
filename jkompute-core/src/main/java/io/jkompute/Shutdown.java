package io.jkompute;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The process-wide stop of jkompute, run by one JVM shutdown hook (Ctrl-C, SIGTERM, {@link System#exit}). The JVM
 * runs shutdown hooks concurrently and keeps every other thread running while they do, so a Manager closed by one
 * hook while a benchmark loop or a graph worker still submits to it crashed the driver. This hook goes in order:
 *
 * <ol>
 *   <li>the stop actions registered with {@link #onStop} run (a graph run interrupts its scheduler and waits for its
 *       entities to stop): work stops at a clean point while the GPU still takes submissions;</li>
 *   <li>from then on every Manager refuses new work ({@link IllegalStateException} "jkompute is stopping") while
 *       work already submitted completes; owners get a few seconds to unwind and close their Managers themselves;</li>
 *   <li>the Managers still open are closed in order (after the GPU is idle and no submission is being made), then
 *       the Vulkan instance is destroyed.</li>
 * </ol>
 *
 * <p>The exit status stays the JVM's: 130 after SIGINT, 143 after SIGTERM.
 */
public final class Shutdown {
    private static final Logging.Log LOG = Logging.logger(Shutdown.class);
    /** How long the stop actions get together before the Managers refuse work anyway. */
    private static final long STOP_ACTIONS_NANOS = TimeUnit.SECONDS.toNanos(
            Long.getLong("jkompute.shutdown.stopSeconds", 10));
    /** How long owners get to close their Managers once work is refused, before they are closed for them. */
    private static final long OWNERS_NANOS = TimeUnit.SECONDS.toNanos(
            Long.getLong("jkompute.shutdown.ownerSeconds", 5));

    private static final int RUNNING = 0;
    private static final int STOPPING = 1;
    private static final int REFUSING = 2;
    private static volatile int phase = RUNNING;
    private static final List<Registration> ACTIONS = new ArrayList<>();
    /** When work was last refused: an owner unwinding from the refusal is about to close its Manager. */
    private static volatile long lastRefusedNanos;
    private static volatile boolean refusedAny;
    /** Whether the Manager class was loaded: a process that only ran CPU graphs has no Vulkan to tear down. */
    private static volatile boolean managersUsed;
    /** How long without refused work counts as no owner unwinding any more. */
    private static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    static {
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(Shutdown::runHook, "jkompute-shutdown"));
        } catch (IllegalStateException alreadyShuttingDown) {
            // first touched while the JVM exits: nothing of jkompute can be running yet
            phase = REFUSING;
        }
    }

    private Shutdown() {}

    /** A registered stop action; {@link #close()} removes it (when the work it stops has ended by itself). */
    public static final class Registration implements AutoCloseable {
        private final String name;
        private final Runnable action;

        private Registration(String name, Runnable action) {
            this.name = name;
            this.action = action;
        }

        @Override
        public void close() {
            synchronized (ACTIONS) {
                ACTIONS.remove(this);
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * Registers {@code action} to run when the JVM begins to exit, before any Manager refuses work or closes: it
     * should stop submitting and return once the work in flight has completed (within
     * {@code -Djkompute.shutdown.stopSeconds}, default 10). Actions run concurrently, most recent first to start.
     * During a shutdown already under way it starts the action at once, on a thread of its own.
     *
     * @param name what it stops, for the log when it does not finish in time
     */
    public static Registration onStop(String name, Runnable action) {
        Registration r = new Registration(java.util.Objects.requireNonNull(name, "name"),
                java.util.Objects.requireNonNull(action, "action"));
        synchronized (ACTIONS) {
            if (phase == RUNNING) {
                ACTIONS.add(r);
                return r;
            }
        }
        // not on the caller's thread: the action may wait for what the caller is about to do (start or close a run)
        Thread.ofPlatform().daemon().name("jkompute-stop " + name).start(action);
        return r;
    }

    /** Whether the JVM has begun to exit (a signal or {@link System#exit}): long work should stop and unwind. */
    public static boolean isStopping() {
        return phase != RUNNING;
    }

    /** Throws when Managers no longer take new work. Called before every submission and every new object. */
    static void checkAccepting() {
        if (phase == REFUSING) {
            lastRefusedNanos = System.nanoTime();
            refusedAny = true;
            throw new IllegalStateException("jkompute is stopping (the JVM is exiting): no new GPU work is accepted");
        }
    }

    /** Whether work was refused during the stop: the Managers still open belong to work that was cut short. */
    static boolean refusedWork() {
        return refusedAny;
    }

    /** Called when the Manager class is first used: only then has the stop Managers to close. */
    static void install() {
        managersUsed = true;
    }

    private static void runHook() {
        List<Registration> actions;
        synchronized (ACTIONS) {
            phase = STOPPING;
            actions = new ArrayList<>(ACTIONS);
            ACTIONS.clear();
        }
        java.util.Collections.reverse(actions);
        long deadline = System.nanoTime() + STOP_ACTIONS_NANOS;
        List<Thread> threads = new ArrayList<>();
        for (Registration r : actions) {
            threads.add(Thread.ofPlatform().daemon().name("jkompute-stop " + r.name).start(() -> {
                try {
                    r.action.run();
                } catch (RuntimeException | Error e) {
                    LOG.warn("stopping {} failed: {}", r.name, e.toString());
                }
            }));
        }
        for (int i = 0; i < threads.size(); i++) {
            if (!join(threads.get(i), deadline)) {
                LOG.warn("{} did not stop within {} s; its Managers are closed under it once idle", actions.get(i),
                        TimeUnit.NANOSECONDS.toSeconds(STOP_ACTIONS_NANOS));
            }
        }
        lastRefusedNanos = System.nanoTime();
        phase = REFUSING;
        if (!managersUsed) {
            return;
        }
        // owners still unwinding (refused work recently) get time to close their Managers themselves; a program that
        // simply left a Manager open at exit is not waited for
        long ownersDeadline = System.nanoTime() + OWNERS_NANOS;
        while (Manager.anyOpen() && System.nanoTime() - ownersDeadline < 0
                && System.nanoTime() - lastRefusedNanos < QUIET_NANOS) {
            Manager.awaitClosed(20);
        }
        Manager.closeAllAtExit();
    }

    private static boolean join(Thread t, long deadline) {
        try {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                t.join(java.time.Duration.ofNanos(left));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !t.isAlive();
    }
}
