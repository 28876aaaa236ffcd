package io.jkompute.bench;

import java.util.List;
import java.util.Locale;

/**
 * The machine-readable report: environment (device, drivers, JDK, date), options, and for each suite its checks,
 * every figure with all its statistics, its ratios and notes. Written by hand: the project takes no JSON library.
 */
public final class JsonReport {
    private JsonReport() {}

    /** The report as JSON. */
    public static String render(Report r) {
        Environment e = r.environment();
        StringBuilder sb = new StringBuilder("{\n");
        sb.append("  \"tool\": \"jkompute bench\",\n");
        sb.append("  \"environment\": {");
        field(sb, "device", e.device(), true);
        field(sb, "deviceType", e.deviceType(), false);
        field(sb, "vulkanApi", e.vulkanApi(), false);
        field(sb, "driver", e.vulkanDriver(), false);
        field(sb, "deviceUuid", e.deviceUuid(), false);
        field(sb, "cudaDevice", e.cudaDevice(), false);
        field(sb, "cudaDriver", e.cudaDriver(), false);
        field(sb, "jdk", e.jdk(), false);
        field(sb, "os", e.os(), false);
        sb.append(", \"cpus\": ").append(e.cpus());
        field(sb, "date", e.date(), false);
        sb.append("},\n");
        sb.append("  \"options\": {\"quick\": ").append(r.options().quick()).append(", \"suites\": [");
        List<String> suites = r.options().suites();
        for (int i = 0; i < suites.size(); i++) sb.append(i > 0 ? ", " : "").append(str(suites.get(i)));
        sb.append("], \"sizes\": [");
        long[] sizes = r.options().sizes();
        for (int i = 0; i < sizes.length; i++) sb.append(i > 0 ? ", " : "").append(sizes[i]);
        sb.append("]},\n");
        sb.append("  \"seconds\": ").append(num(r.seconds())).append(",\n");
        sb.append("  \"checksPassed\": ").append(r.checksPassed()).append(",\n");
        sb.append("  \"suites\": [");
        for (int i = 0; i < r.suites().size(); i++) {
            sb.append(i > 0 ? "," : "").append("\n    ");
            suite(sb, r.suites().get(i));
        }
        sb.append("\n  ]\n}\n");
        return sb.toString();
    }

    private static void suite(StringBuilder sb, SuiteResult s) {
        sb.append("{");
        field(sb, "name", s.name(), true);
        field(sb, "title", s.title(), false);
        field(sb, "skipped", s.skipped(), false);
        sb.append(", \"seconds\": ").append(num(s.seconds()));
        sb.append(",\n     \"checks\": [");
        for (int i = 0; i < s.checks().size(); i++) {
            Check c = s.checks().get(i);
            sb.append(i > 0 ? ", " : "").append("{");
            field(sb, "name", c.name(), true);
            sb.append(", \"passed\": ").append(c.passed());
            field(sb, "detail", c.detail(), false);
            sb.append("}");
        }
        sb.append("],\n     \"figures\": [");
        for (int i = 0; i < s.figures().size(); i++) {
            Figure f = s.figures().get(i);
            Summary st = f.stats();
            sb.append(i > 0 ? "," : "").append("\n       {");
            field(sb, "metric", f.metric(), true);
            field(sb, "impl", f.impl(), false);
            sb.append(", \"bytes\": ").append(f.bytes());
            field(sb, "unit", f.unit(), false);
            sb.append(", \"median\": ").append(num(st.p50())).append(", \"p10\": ").append(num(st.p10()))
                    .append(", \"p90\": ").append(num(st.p90())).append(", \"p99\": ").append(num(st.p99()))
                    .append(", \"min\": ").append(num(st.min())).append(", \"max\": ").append(num(st.max()))
                    .append(", \"samples\": ").append(st.count()).append("}");
        }
        sb.append("],\n     \"ratios\": [");
        for (int i = 0; i < s.ratios().size(); i++) {
            Ratio x = s.ratios().get(i);
            sb.append(i > 0 ? "," : "").append("\n       {");
            field(sb, "name", x.name(), true);
            sb.append(", \"value\": ").append(num(x.value()));
            sb.append(", \"target\": ").append(x.hasTarget() ? num(x.target()) : "null");
            sb.append(", \"atLeast\": ").append(x.atLeast());
            sb.append(", \"met\": ").append(x.hasTarget() ? String.valueOf(x.met()) : "null");
            field(sb, "note", x.note(), false);
            sb.append("}");
        }
        sb.append("],\n     \"notes\": [");
        for (int i = 0; i < s.notes().size(); i++) sb.append(i > 0 ? ", " : "").append(str(s.notes().get(i)));
        sb.append("]}");
    }

    private static void field(StringBuilder sb, String k, String v, boolean first) {
        sb.append(first ? "" : ", ").append(str(k)).append(": ").append(v == null ? "null" : str(v));
    }

    static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return "null";
        return String.format(Locale.ROOT, "%.6g", v);
    }

    static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        return sb.append('"').toString();
    }
}
