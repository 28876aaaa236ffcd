package io.jkompute.graph;

/**
 * Work from outside the graph that a scheduler's waiting thread takes in itself, in the manner of Agrona's
 * {@code Agent.doWork()}: a network receiver polls its socket, a network transmitter its return path. A scheduler
 * thread with nothing to run calls every registered poller for a short while ({@link Graph#addPoller}) before it
 * parks, so a message that arrives then is staged and ticked by the same thread, without the wake-up of another
 * thread (tens of µs each way on a VM) between the socket and the codelet.
 *
 * <p>Several threads may call {@link #poll()} at once (the workers of a multi-thread scheduler, the component's own
 * thread): an implementation that is not thread-safe takes a lock with {@code tryLock} and returns 0 when another
 * thread holds it. It never blocks.
 */
@FunctionalInterface
public interface Poller {
    /**
     * Takes in what has arrived and sends what is due; returns how much work that was (0: none). An arrival that
     * should run an entity is reported with {@link Graph#notify}, as from any other thread.
     */
    int poll();
}
