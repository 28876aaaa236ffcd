package io.jkompute.graph;

import io.jkompute.graph.internal.StagingQueue;
import java.util.BitSet;

/** GXF's entity executor: start, check, tick (inbox → codelets → terms → outbox), stop. */
final class EntityExecutor {
    private EntityExecutor() {
    }

    static void start(Entity e, long now) {
        BitSet previous = pin(e);
        try {
            startCodelets(e, now);
        } finally {
            unpin(e, previous);
        }
    }

    static void tick(Entity e, long now, ExecutionContext ctx) {
        BitSet previous = pin(e);
        try {
            tickCodelets(e, now, ctx);
        } finally {
            unpin(e, previous);
        }
    }

    static void stop(Entity e) {
        if (!e.started || e.stopped) {
            return;
        }
        BitSet previous = pin(e);
        try {
            stopCodelets(e);
        } finally {
            unpin(e, previous);
        }
    }

    private static BitSet pin(Entity e) {
        return e.cpuThread == null ? null : e.cpuThread.enter();
    }

    private static void unpin(Entity e, BitSet previous) {
        if (previous != null) {
            e.cpuThread.exit(previous);
        }
    }

    private static void startCodelets(Entity e, long now) {
        e.started = true;
        for (Codelet c : e.codeletArray) {
            c.beforeStart(now);
            try {
                c.start();
            } catch (Throwable t) {
                throw failure(e, c, "start", t);
            }
            c.markStarted(true);
        }
    }

    static SchedulingCondition check(Entity e, long now) {
        SchedulingTerm[] terms = e.terms;
        SchedulingCondition c = SchedulingCondition.READY_NOW;
        for (SchedulingTerm t : terms) {
            SchedulingCondition tc;
            try {
                tc = t.check(now);
            } catch (RuntimeException ex) {
                throw new GraphExecutionException(e.name(), t.name(), "scheduling term '" + t.path() + "' ("
                        + t.typeName() + ") failed: " + ex.getMessage(), ex);
            }
            c = c.and(tc);
            if (c.type() == SchedulingConditionType.NEVER) {
                return c;
            }
        }
        return c;
    }

    // the per-tick path allocates nothing: arrays fixed at activation, no iterators, lambdas or boxing.
    // Statistics read the clock once per codelet boundary: a codelet's time runs from the previous codelet's end (the
    // first one's: the execution's start, inbox sync included) to the next one's start (the last one's: the end,
    // terms and outbox delivery included), so the codelets' times add up to the entity's and a one-codelet entity
    // costs two System.nanoTime calls per tick instead of four.
    private static void tickCodelets(Entity e, long now, ExecutionContext ctx) {
        long t0 = System.nanoTime();
        for (Receiver r : e.receiverArray) {
            try {
                r.sync();
            } catch (StagingQueue.Overflow o) {
                throw overflow(r, "sync", o);
            }
        }
        TickScope scope = TickScope.enter(e.name(), e.messageOrigin);
        boolean done = false;
        Codelet[] codelets = e.codeletArray;
        Codelet timing = null; // the codelet whose time runs until the next clock reading
        long mark = t0;
        try {
            for (Codelet c : codelets) {
                if (timing != null) {
                    long t = System.nanoTime();
                    timing.stats.add(t - mark);
                    mark = t;
                }
                timing = c;
                c.beforeTick(now);
                try {
                    c.tick();
                } catch (QueueOverflowException q) {
                    throw q;
                } catch (Throwable t) {
                    throw failure(e, c, "tick", t);
                }
            }
            for (SchedulingTerm t : e.allTermArray) {
                t.onExecute(now);
            }
            deliverOutbox(e, ctx);
            done = true;
        } finally {
            // a failed tick still counts: its codelets ran
            long end = System.nanoTime();
            if (timing != null) {
                timing.stats.add(end - mark);
            }
            e.stats.add(end - t0);
            if (done) {
                scope.exit();
            } else {
                releaseQuietly(scope);
            }
        }
        for (Receiver r : e.receiverArray) {
            for (Transmitter t : r.sourceArray()) {
                ctx.notifyEvent(t.entity());
            }
        }
        ctx.notifyEvent(e);
    }

    private static void releaseQuietly(TickScope scope) {
        try {
            scope.exit();
        } catch (RuntimeException ignored) {
            // the tick's own failure is the one to report
        }
    }

    private static void deliverOutbox(Entity e, ExecutionContext ctx) {
        for (Transmitter t : e.transmitterArray) {
            if (t.backSize() == 0 && t.size() == 0) {
                continue;
            }
            try {
                t.sync();
            } catch (StagingQueue.Overflow o) {
                throw overflow(t, "sync", o);
            }
            Receiver[] targets = t.targetArray();
            int last = targets.length - 1;
            Message m;
            while ((m = t.pop()) != null) {
                // each receiver but the last takes a reference of its own; the last one takes over the
                // transmitter's, which saves two reference-count updates per message on a one-to-one connection
                boolean handedOver = false;
                try {
                    for (int i = 0; i <= last; i++) {
                        Receiver r = targets[i];
                        if (i < last) {
                            m.retain();
                        }
                        try {
                            r.deliver(m);
                        } catch (StagingQueue.Overflow o) {
                            if (i < last) {
                                m.release();
                            }
                            throw overflow(r, "delivery from '" + t.path() + "'", o);
                        }
                        handedOver = i == last; // from here on the message may be gone: do not touch it again
                    }
                } finally {
                    if (!handedOver) {
                        m.release();
                    }
                }
            }
            for (Receiver r : targets) {
                ctx.notifyEvent(r.entity());
            }
        }
    }

    private static void stopCodelets(Entity e) {
        e.stopped = true;
        GraphExecutionException first = null;
        for (Codelet c : e.codeletArray) {
            if (!c.started()) {
                continue;
            }
            c.markStarted(false);
            c.beforeStop();
            try {
                c.stop();
            } catch (Throwable t) {
                if (first == null) {
                    first = failure(e, c, "stop", t);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static GraphExecutionException failure(Entity e, Codelet c, String phase, Throwable t) {
        if (t instanceof Error err && !(t instanceof AssertionError) && !(t instanceof StackOverflowError)) {
            throw err;
        }
        String cause = t.getMessage() == null ? t.getClass().getName() : t.getClass().getSimpleName() + ": " + t.getMessage();
        return new GraphExecutionException(e.name(), c.name(), "codelet '" + c.path() + "' (" + c.typeName()
                + ") failed in " + phase + "(): " + cause, t);
    }

    private static QueueOverflowException overflow(Component q, String during, StagingQueue.Overflow o) {
        return new QueueOverflowException(q.entity().name(), q.name(), "queue '" + q.path() + "' overflowed during "
                + during + ": " + o.getMessage() + ", policy 2 (fault); raise its capacity, give it policy 0 (drop "
                + "oldest) or 1 (drop newest), or add a DownstreamReceptiveSchedulingTerm upstream");
    }
}
