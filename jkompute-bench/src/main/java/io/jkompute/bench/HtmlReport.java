package io.jkompute.bench;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * A self-contained HTML page: environment, ratio table, and per suite its charts (inline SVG: bandwidth against size on
 * a log axis, latency percentiles as bars) and tables. No script, no external files.
 */
public final class HtmlReport {
    private HtmlReport() {}

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
    private static final int W = 640, H = 300, L = 60, R = 170, T = 20, B = 40;

    /** The report as one self-contained HTML page. */
    public static String render(Report r) {
        Environment e = r.environment();
        StringBuilder sb = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
        sb.append("<title>jkompute bench — ").append(esc(e.device())).append("</title><style>")
                .append("body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;margin:.5em 0 1.5em}")
                .append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}")
                .append(".bad{color:#b00;font-weight:bold}.ok{color:#070}svg{background:#fafafa;border:1px solid #ddd;margin:.3em 0}")
                .append("</style></head><body>\n");
        sb.append("<h1>jkompute bench</h1><p><b>").append(esc(e.device())).append("</b> (").append(esc(e.deviceType()))
                .append(", Vulkan ").append(esc(e.vulkanApi())).append(", driver ").append(esc(e.vulkanDriver())).append(")");
        if (e.cudaDevice() != null) sb.append(", CUDA driver ").append(esc(e.cudaDriver()));
        sb.append("<br>").append(esc(e.jdk())).append(" · ").append(esc(e.os())).append(" · ").append(e.cpus())
                .append(" CPUs · ").append(esc(e.date())).append(r.options().quick() ? " · quick mode" : "").append("<br>")
                .append("correctness checks: ").append(r.checksPassed() ? "<span class=ok>all passed</span>" : "<span class=bad>FAILED</span>")
                .append(String.format(Locale.ROOT, " · %.1f s", r.seconds())).append("</p>\n");
        Table ratios = Table.ratios(r);
        if (!ratios.rows().isEmpty()) {
            sb.append("<h2>Ratios</h2>").append(table(ratios));
        }
        for (SuiteResult s : r.suites()) {
            sb.append("<h2>").append(esc(s.title())).append("</h2>\n");
            if (s.skipped() != null) sb.append("<p><i>skipped: ").append(esc(s.skipped())).append("</i></p>\n");
            s.checks().stream().filter(c -> !c.passed()).forEach(c -> sb.append("<p class=bad>check failed: ")
                    .append(esc(c.name())).append(": ").append(esc(c.detail())).append("</p>\n"));
            sb.append("<p>").append(s.checks().stream().filter(Check::passed).count()).append(" of ").append(s.checks().size())
                    .append(" correctness checks passed.</p>\n");
            Set<String> metrics = new LinkedHashSet<>();
            s.figures().stream().filter(f -> f.bytes() > 0).forEach(f -> metrics.add(f.metric()));
            for (String m : metrics) {
                sb.append(sizeChart(s.figures().stream().filter(f -> f.bytes() > 0 && f.metric().equals(m)).toList(), m));
            }
            List<Figure> lat = s.figures().stream().filter(f -> f.bytes() == 0 && f.unit().equals("µs") && f.stats().count() > 1).toList();
            if (!lat.isEmpty()) sb.append(percentileChart(lat));
            for (Table t : Table.of(s)) sb.append(table(t));
            for (String n : s.notes()) sb.append("<p>note: ").append(esc(n)).append("</p>\n");
        }
        return sb.append("</body></html>\n").toString();
    }

    /** Median against size (log2 x axis), one line per implementation. */
    static String sizeChart(List<Figure> figs, String metric) {
        Set<String> impls = new LinkedHashSet<>();
        TreeSet<Long> sizes = new TreeSet<>();
        double ymax = 0;
        for (Figure f : figs) {
            impls.add(f.impl());
            sizes.add(f.bytes());
            ymax = Math.max(ymax, f.value());
        }
        ymax = niceCeil(ymax);
        double x0 = log2(sizes.first()), x1 = Math.max(x0 + 1, log2(sizes.last()));
        String unit = figs.get(0).unit();
        StringBuilder sb = svgStart(metric + " — " + unit + " against buffer size", H);
        axes(sb, ymax, unit, H, B);
        for (long b : sizes) {
            double x = L + (log2(b) - x0) / (x1 - x0) * (W - L - R);
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>",
                    x, H - B + 15, esc(BenchOptions.formatBytes(b))));
        }
        int k = 0;
        for (String impl : impls) {
            String c = COLORS[k % COLORS.length];
            StringBuilder pts = new StringBuilder();
            for (Figure f : figs) {
                if (!f.impl().equals(impl)) continue;
                double x = L + (log2(f.bytes()) - x0) / (x1 - x0) * (W - L - R);
                double y = H - B - f.value() / ymax * (H - T - B);
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                sb.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s %s: %s %s</title></circle>",
                        x, y, c, esc(impl), BenchOptions.formatBytes(f.bytes()), Table.num(f.value()), esc(unit)));
            }
            sb.append("<polyline fill=\"none\" stroke=\"").append(c).append("\" stroke-width=\"2\" points=\"").append(pts).append("\"/>");
            legend(sb, k++, c, impl);
        }
        return sb.append("</svg>\n").toString();
    }

    /** p50 / p90 / p99 bars for each implementation. */
    static String percentileChart(List<Figure> figs) {
        double ymax = niceCeil(figs.stream().mapToDouble(f -> f.stats().p99()).max().orElse(1));
        StringBuilder sb = svgStart("round-trip latency percentiles (µs); bars numbered as in the list below", H);
        axes(sb, ymax, "µs", H, B);
        double slot = (W - L - R) / (double) figs.size();
        String[] names = {"p50", "p90", "p99"};
        for (int i = 0; i < figs.size(); i++) {
            Summary st = figs.get(i).stats();
            double[] v = {st.p50(), st.p90(), st.p99()};
            double bw = slot * 0.8 / 3;
            for (int j = 0; j < 3; j++) {
                double x = L + i * slot + slot * 0.1 + j * bw;
                double h = v[j] / ymax * (H - T - B);
                sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %s µs</title></rect>",
                        x, H - B - h, bw - 1, h, COLORS[j], esc(figs.get(i).impl()), names[j], Table.num(v[j])));
            }
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d</text>",
                    L + (i + 0.5) * slot, H - B + 15, i + 1));
        }
        for (int j = 0; j < 3; j++) legend(sb, j, COLORS[j], names[j]);
        sb.append("</svg>\n<ol style=\"font-size:12px;margin-top:0\">");
        figs.forEach(f -> sb.append("<li>").append(esc(f.impl())).append("</li>"));
        return sb.append("</ol>\n").toString();
    }

    private static StringBuilder svgStart(String title, int h) {
        return new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>%s</title>"
                        + "<text x=\"%d\" y=\"14\" font-size=\"12\" font-weight=\"bold\">%s</text>",
                W, h, W, h, esc(title), L, esc(title)));
    }

    /** Axes, four gridlines and the unit, for a canvas {@code height} tall with bottom margin {@code bottom}. */
    private static void axes(StringBuilder sb, double ymax, String unit, int height, int bottom) {
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", L, height - bottom, W - R, height - bottom));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", L, T, L, height - bottom));
        for (int i = 0; i <= 4; i++) {
            double v = ymax * i / 4;
            double y = height - bottom - (double) i / 4 * (height - T - bottom);
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>", L, y, W - R, y, L - 4, y + 4, Table.num(v)));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"%d\" font-size=\"11\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">%s</text>",
                (height - bottom + T) / 2, (height - bottom + T) / 2, esc(unit)));
    }

    private static void legend(StringBuilder sb, int k, String color, String label) {
        int y = T + 10 + k * 18;
        sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                + "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>", W - R + 10, y - 10, color, W - R + 26, y, esc(label)));
    }

    private static String table(Table t) {
        StringBuilder sb = new StringBuilder("<table><caption>").append(esc(t.title())).append("</caption><tr>");
        t.header().forEach(h -> sb.append("<th>").append(esc(h)).append("</th>"));
        sb.append("</tr>");
        for (List<String> row : t.rows()) {
            sb.append("<tr>");
            for (String c : row) {
                sb.append(c.equals("BELOW TARGET") ? "<td class=bad>" : c.equals("met") ? "<td class=ok>" : "<td>").append(esc(c)).append("</td>");
            }
            sb.append("</tr>");
        }
        return sb.append("</table>\n").toString();
    }

    static double niceCeil(double v) {
        if (v <= 0) return 1;
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v) return m * p;
        }
        return 10 * p;
    }

    private static double log2(long b) {
        return Math.log(b) / Math.log(2);
    }

    static String esc(String s) {
        if (s == null) return "";
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

}
