package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;

/** The parameters every GXF scheduler has: clock, max_duration_ms, stop_on_deadlock, stop_on_deadlock_timeout. */
final class SchedulerParameters {
    Parameter<Clock> clock;
    Parameter<Long> maxDurationMs;
    Parameter<Boolean> stopOnDeadlock;
    Parameter<Long> stopOnDeadlockTimeout;

    void register(Registrar r) {
        clock = r.handle("clock", Clock.class, "the clock the scheduler runs on");
        maxDurationMs = r.optional("max_duration_ms", ParameterTypes.INT64, "stop after this long (clock time)");
        stopOnDeadlock = r.parameter("stop_on_deadlock", ParameterTypes.BOOL,
                "stop when nothing can ever become ready", true);
        stopOnDeadlockTimeout = r.parameter("stop_on_deadlock_timeout", ParameterTypes.INT64,
                "ms to wait in deadlock before stopping (< 0: never)", 0L);
    }

    DeadlockWatch deadlockWatch() {
        return new DeadlockWatch(stopOnDeadlock.get(), stopOnDeadlockTimeout.get());
    }

    /** How long (wall ns) an open-ended wait may last before the deadline must be checked; -1 without a deadline. */
    static long waitCap(Clock clock, long deadline) {
        return deadline == Long.MAX_VALUE || clock.isManual() ? -1 : clock.wallNanosUntil(deadline) + 1;
    }

    /** The clock time after which the run stops, or Long.MAX_VALUE. */
    long deadline(long start) {
        return maxDurationMs.isSet() ? start + maxDurationMs.get() * 1_000_000L : Long.MAX_VALUE;
    }
}
