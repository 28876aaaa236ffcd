package io.jkompute.bench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A plain table (title, header, rows of text) built from a suite's figures or from a report's ratios; the terminal,
 * Markdown and HTML renderers all draw the same tables.
 */
public record Table(String title, List<String> header, List<List<String>> rows) {

    /**
     * A suite's figures: sized figures make one table per metric, one row per size and one column per implementation
     * (medians); unsized ones list one row per (metric, implementation) with their percentiles.
     */
    public static List<Table> of(SuiteResult s) {
        List<Table> out = new ArrayList<>();
        List<Figure> sized = s.figures().stream().filter(f -> f.bytes() > 0).toList();
        List<Figure> plain = s.figures().stream().filter(f -> f.bytes() == 0).toList();
        Set<String> metrics = new LinkedHashSet<>();
        sized.forEach(f -> metrics.add(f.metric()));
        for (String m : metrics) {
            List<Figure> fs = sized.stream().filter(f -> f.metric().equals(m)).toList();
            Set<String> impls = new LinkedHashSet<>();
            Set<Long> sizes = new java.util.TreeSet<>();
            fs.forEach(f -> {
                impls.add(f.impl());
                sizes.add(f.bytes());
            });
            List<String> header = new ArrayList<>(List.of("size"));
            impls.forEach(i -> header.add(i));
            List<List<String>> rows = new ArrayList<>();
            for (long b : sizes) {
                List<String> row = new ArrayList<>(List.of(BenchOptions.formatBytes(b)));
                for (String i : impls) {
                    var f = fs.stream().filter(x -> x.impl().equals(i) && x.bytes() == b).findFirst();
                    row.add(f.map(x -> num(x.value()) + " ±" + pct(x.stats().spreadPercent())).orElse("—"));
                }
                rows.add(row);
            }
            out.add(new Table(s.title() + " — " + m + ", " + fs.get(0).unit() + " (median ± p10–p90 spread)", header, rows));
        }
        if (!plain.isEmpty()) {
            List<List<String>> rows = new ArrayList<>();
            for (Figure f : plain) {
                Summary st = f.stats();
                rows.add(List.of(f.metric(), f.impl(), f.unit(), num(st.p50()), num(st.p90()), num(st.p99()), num(st.min()),
                        num(st.max()), String.valueOf(st.count())));
            }
            out.add(new Table(s.title(), List.of("metric", "implementation", "unit", "p50", "p90", "p99", "min", "max",
                    "samples"), rows));
        }
        return out;
    }

    /** Every ratio of the report against its target. */
    public static Table ratios(Report r) {
        List<List<String>> rows = new ArrayList<>();
        r.ratios().forEach(x -> rows.add(List.of(x.suite(), x.name(), String.format(Locale.ROOT, "%.3f", x.value()),
                x.targetText(), x.hasTarget() ? (x.met() ? "met" : "BELOW TARGET") : "info", x.note())));
        return new Table("Ratios against the baselines and peers measured in this run (" + r.environment().device() + ")",
                List.of("suite", "ratio", "value", "target", "status", "note"), rows);
    }

    static String num(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) return String.format(Locale.ROOT, "%,.0f", v);
        if (a >= 100) return String.format(Locale.ROOT, "%.0f", v);
        if (a >= 10) return String.format(Locale.ROOT, "%.1f", v);
        if (a >= 1) return String.format(Locale.ROOT, "%.2f", v);
        return String.format(Locale.ROOT, "%.3f", v);
    }

    static String pct(double p) {
        return String.format(Locale.ROOT, "%.0f%%", p);
    }
}
