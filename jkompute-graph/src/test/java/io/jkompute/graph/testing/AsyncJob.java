package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.std.AsynchronousEventState;
import io.jkompute.graph.std.AsynchronousSchedulingTerm;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Each tick starts a background job and parks the entity (EVENT_WAITING); the job finishes 2 ms later with
 * EVENT_DONE, which wakes the scheduler (with finish: false it never ends). Counts ticks that found the job finished.
 */
public class AsyncJob extends CodeletAdapter {
    public final AtomicInteger jobsDone = new AtomicInteger();
    public int ticksAfterDone;

    @Override
    public void tick() {
        AsynchronousSchedulingTerm term = component(param("term"), AsynchronousSchedulingTerm.class);
        if (executionCount() > 1 && term.eventState() == AsynchronousEventState.EVENT_DONE) {
            ticksAfterDone++;
        }
        term.setEventState(AsynchronousEventState.EVENT_WAITING);
        if (Boolean.FALSE.equals(params().get("finish"))) {
            return; // the job never ends: the entity stays parked
        }
        Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
            jobsDone.incrementAndGet();
            term.setEventState(AsynchronousEventState.EVENT_DONE);
        });
    }
}
