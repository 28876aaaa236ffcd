package io.jkompute.graph.std;

/**
 * GXF's deadlock rule for schedulers: stop when nothing is READY, WAIT_TIME or WAIT_EVENT, if
 * {@code stop_on_deadlock}, once it has lasted {@code stop_on_deadlock_timeout} ms (0 = at once, < 0 = never).
 */
final class DeadlockWatch {
    private final boolean stopOnDeadlock;
    private final long timeoutNs;
    private long since = -1;

    DeadlockWatch(boolean stopOnDeadlock, long timeoutMs) {
        this.stopOnDeadlock = stopOnDeadlock;
        this.timeoutNs = timeoutMs < 0 ? -1 : timeoutMs * 1_000_000L;
    }

    /** Something could make progress. */
    void progress() {
        since = -1;
    }

    /** Nothing can make progress right now; returns whether the scheduler should stop. */
    boolean stuck() {
        if (!stopOnDeadlock || timeoutNs < 0) {
            return false;
        }
        long now = System.nanoTime();
        if (since < 0) {
            since = now;
        }
        return now - since >= timeoutNs;
    }

    static final String MESSAGE = "Some entities are waiting for execution, but there are no periodic or async "
            + "entities to get out of the deadlock";
}
