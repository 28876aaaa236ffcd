package io.jkompute.bench;

import java.util.ArrayList;
import java.util.List;

/** The terminal table: environment, every suite's figures, checks that failed, notes, and the ratios. */
public final class TextReport {
    private TextReport() {}

    /** The report as a plain-text table, as {@code ./jkompute bench} prints it. */
    public static String render(Report r) {
        StringBuilder sb = new StringBuilder();
        Environment e = r.environment();
        sb.append("jkompute bench — ").append(e.device()).append(" (Vulkan ").append(e.vulkanApi()).append(", driver ")
                .append(e.vulkanDriver()).append(")");
        if (e.cudaDevice() != null) sb.append(", CUDA ").append(e.cudaDriver());
        sb.append('\n').append(e.jdk()).append(", ").append(e.os()).append(", ").append(e.cpus()).append(" CPUs, ")
                .append(e.date()).append(r.options().quick() ? ", quick mode" : "").append('\n');
        for (SuiteResult s : r.suites()) {
            sb.append('\n').append("== ").append(s.title()).append(String.format(" [%s, %.1f s]", s.name(), s.seconds())).append('\n');
            if (s.skipped() != null) {
                sb.append("skipped: ").append(s.skipped()).append('\n');
            }
            long passed = s.checks().stream().filter(Check::passed).count();
            sb.append(String.format("checks: %d of %d passed%n", passed, s.checks().size()));
            s.checks().stream().filter(c -> !c.passed()).forEach(c -> sb.append("  FAILED ").append(c.name()).append(": ")
                    .append(c.detail()).append('\n'));
            for (Table t : Table.of(s)) {
                sb.append(draw(t));
            }
            s.notes().forEach(n -> sb.append("note: ").append(n).append('\n'));
        }
        Table ratios = Table.ratios(r);
        if (!ratios.rows().isEmpty()) {
            sb.append('\n').append(draw(ratios));
        }
        sb.append(String.format("%nall correctness checks %s; %.1f s%n", r.checksPassed() ? "passed" : "DID NOT PASS", r.seconds()));
        return sb.toString();
    }

    static String draw(Table t) {
        int cols = t.header().size();
        int[] w = new int[cols];
        List<List<String>> all = new ArrayList<>();
        all.add(t.header());
        all.addAll(t.rows());
        for (List<String> row : all) {
            for (int i = 0; i < cols; i++) w[i] = Math.max(w[i], row.get(i).length());
        }
        StringBuilder sb = new StringBuilder(t.title()).append('\n');
        for (int k = 0; k < all.size(); k++) {
            List<String> row = all.get(k);
            for (int i = 0; i < cols; i++) {
                String c = row.get(i);
                boolean right = i > 0 && k > 0 && !c.isEmpty() && (Character.isDigit(c.charAt(0)) || c.equals("—"));
                sb.append(i == 0 ? "  " : "  ").append(right ? pad(c, w[i], true) : pad(c, w[i], false));
            }
            sb.append('\n');
            if (k == 0) {
                sb.append("  ");
                for (int i = 0; i < cols; i++) sb.append("-".repeat(w[i])).append(i + 1 < cols ? "  " : "");
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static String pad(String s, int w, boolean right) {
        String sp = " ".repeat(Math.max(0, w - s.length()));
        return right ? sp + s : s + sp;
    }
}
