package io.jkompute.cli;

import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * How a command ends when the JVM is stopping (Ctrl-C, SIGTERM) and how a graph run's ending reads. The stop itself
 * is {@link io.jkompute.Shutdown}'s: work stops, devices close in order, and the JVM exits with 130 or 143.
 */
final class StopSignal {
    private StopSignal() {}

    /** One line on stderr; the status returned is what the JVM's own exit (130 after SIGINT) would give. */
    static int report(PrintWriter err) {
        err.println("jkompute: stopped (the process received a stop signal); work in flight completed, devices closed");
        err.flush();
        return 130;
    }

    /**
     * The run's ending in one line, then one line per codelet summary: {@code graph completed after 84.1 ms: work
     * done: ...} / {@code graph stopped: DEADLOCK after ...} followed by its detail (the waiting entities).
     */
    static String ending(RunResult r) {
        String time = String.format(Locale.ROOT, "%.3f ms", r.durationNs() / 1e6);
        StringBuilder sb = new StringBuilder();
        String detail = r.detail() == null ? "" : r.detail().strip();
        if (r.reason() == StopReason.COMPLETED) {
            sb.append("graph completed after ").append(time);
            if (!detail.isEmpty()) {
                sb.append(": ").append(detail);
            }
        } else {
            sb.append("graph stopped: ").append(r.reason()).append(" after ").append(time);
            if (!detail.isEmpty()) {
                sb.append('\n').append(detail);
            }
        }
        for (String s : r.summaries()) {
            sb.append("\n  ").append(s);
        }
        return sb.toString();
    }
}
