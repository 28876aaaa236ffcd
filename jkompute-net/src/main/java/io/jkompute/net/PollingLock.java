package io.jkompute.net;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * The lock one side of a link polls under: the link's own thread and the graph's threads ({@link io.jkompute.graph.Poller})
 * take turns, whichever gets the lock polls, and a failure while polling ends the link rather than reaching the
 * thread that happened to poll (a scheduler thread, a sending codelet's).
 */
final class PollingLock extends ReentrantLock {
    /**
     * Runs {@code poll} under this lock and returns its work: at once if the lock is free, else 0, or, with
     * {@code wait}, after the thread holding it lets go (a sender that waits for a credit takes it in itself). A
     * failure goes to {@code failed} and counts as no work.
     */
    int poll(boolean wait, IntSupplier poll, Consumer<Throwable> failed) {
        if (wait) {
            lock();
        } else if (!tryLock()) {
            return 0;
        }
        try {
            return poll.getAsInt();
        } catch (RuntimeException | Error e) {
            failed.accept(e);
            return 0;
        } finally {
            unlock();
        }
    }
}
