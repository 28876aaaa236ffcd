package io.jkompute.bench.internal;

import io.jkompute.bench.Check;
import io.jkompute.bench.Figure;
import io.jkompute.bench.Ratio;
import io.jkompute.bench.Summary;
import io.jkompute.bench.SuiteResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Collects one suite's checks, figures, ratios and notes. */
public final class Recorder {
    private final String suite;
    private final List<Check> checks = new ArrayList<>();
    private final List<Figure> figures = new ArrayList<>();
    private final List<Ratio> ratios = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private String skipped;

    public Recorder(String suite) {
        this.suite = suite;
    }

    /** Records a check; returns whether it passed, so the caller times only what is right. */
    boolean check(String name, String failure) {
        checks.add(new Check(suite, name, failure == null, failure == null ? "matches the CPU reference" : failure));
        return failure == null;
    }

    Figure figure(String metric, String impl, long bytes, String unit, Summary stats) {
        Figure f = new Figure(suite, metric, impl, bytes, unit, stats);
        figures.add(f);
        return f;
    }

    List<Figure> figures() {
        return figures;
    }

    Optional<Figure> find(String metric, String impl, long bytes) {
        return figures.stream().filter(f -> f.metric().equals(metric) && f.impl().equals(impl) && f.bytes() == bytes).findFirst();
    }

    /** Adds {@code jk / base} (or the latency form) when both figures exist. */
    void ratio(String name, Optional<Figure> jk, Optional<Figure> base, double target, boolean atLeast, String note) {
        if (jk.isPresent() && base.isPresent()) {
            ratios.add(new Ratio(suite, name, jk.get().value() / base.get().value(), target, atLeast, note));
        }
    }

    void note(String text) {
        notes.add(text);
    }

    void skip(String why) {
        skipped = why;
    }

    public void failed(Throwable t) {
        checks.add(new Check(suite, "suite ran to the end", false, t.getClass().getSimpleName() + ": " + t.getMessage()));
    }

    public SuiteResult result(String title, double seconds) {
        return new SuiteResult(suite, title, List.copyOf(checks), List.copyOf(figures), List.copyOf(ratios),
                List.copyOf(notes), skipped, seconds);
    }
}
