package io.jkompute.graph;

import static io.jkompute.graph.internal.JsonText.quote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Per-entity and per-codelet statistics of a run, as a table for people and JSON for tools. */
public record JobStatistics(long durationNs, List<EntityStatistics> entities) {

    /** The statistics of one entity, or null. */
    public EntityStatistics entity(String name) {
        for (EntityStatistics e : entities) {
            if (e.entity().equals(name)) {
                return e;
            }
        }
        return null;
    }

    /** A fixed-width table: one line per entity, then one per codelet. */
    public String toTable() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-24s %10s %12s %12s %12s %10s %10s %12s%n", "entity", "ticks",
                "total ms", "mean us", "max us", "msgs in", "msgs out", "ticks/s"));
        for (EntityStatistics e : entities) {
            sb.append(String.format(Locale.ROOT, "%-24s %10d %12.3f %12.3f %12.3f %10d %10d %12.1f%n", e.entity(),
                    e.ticks(), e.totalTickNs() / 1e6, e.meanTickNs() / 1e3, e.maxTickNs() / 1e3, e.messagesIn(),
                    e.messagesOut(), ticksPerSecond(e)));
        }
        sb.append(String.format(Locale.ROOT, "%-36s %10s %12s %12s %12s%n", "codelet", "ticks", "total ms",
                "mean us", "max us"));
        for (EntityStatistics e : entities) {
            for (CodeletStatistics c : e.codelets()) {
                sb.append(String.format(Locale.ROOT, "%-36s %10d %12.3f %12.3f %12.3f%n", c.entity() + "/" + c.codelet(),
                        c.ticks(), c.totalTickNs() / 1e6, c.meanTickNs() / 1e3, c.maxTickNs() / 1e3));
            }
        }
        return sb.toString();
    }

    /** Ticks per second of wall time over the whole run (0 for a run of no duration). */
    public double ticksPerSecond(EntityStatistics e) {
        return durationNs <= 0 ? 0 : e.ticks() * 1e9 / durationNs;
    }

    /** The statistics as a JSON object (written by hand: it is small and flat). */
    public String toJson() {
        StringBuilder sb = new StringBuilder();
        sb.append("{\n  \"duration_ns\": ").append(durationNs).append(",\n  \"entities\": [");
        for (int i = 0; i < entities.size(); i++) {
            EntityStatistics e = entities.get(i);
            sb.append(i == 0 ? "\n" : ",\n");
            sb.append("    {\"name\": ").append(quote(e.entity()))
                    .append(", \"ticks\": ").append(e.ticks())
                    .append(", \"total_tick_ns\": ").append(e.totalTickNs())
                    .append(", \"mean_tick_ns\": ").append(number(e.meanTickNs()))
                    .append(", \"max_tick_ns\": ").append(e.maxTickNs())
                    .append(", \"messages_in\": ").append(e.messagesIn())
                    .append(", \"messages_out\": ").append(e.messagesOut())
                    .append(", \"ticks_per_second\": ").append(number(ticksPerSecond(e)))
                    .append(", \"codelets\": [");
            for (int j = 0; j < e.codelets().size(); j++) {
                CodeletStatistics c = e.codelets().get(j);
                sb.append(j == 0 ? "" : ", ");
                sb.append("{\"name\": ").append(quote(c.codelet()))
                        .append(", \"type\": ").append(quote(c.type()))
                        .append(", \"ticks\": ").append(c.ticks())
                        .append(", \"total_tick_ns\": ").append(c.totalTickNs())
                        .append(", \"mean_tick_ns\": ").append(number(c.meanTickNs()))
                        .append(", \"max_tick_ns\": ").append(c.maxTickNs()).append('}');
            }
            sb.append("]}");
        }
        sb.append(entities.isEmpty() ? "]\n}\n" : "\n  ]\n}\n");
        return sb.toString();
    }

    /**
     * The statistics in the layout GXF's JobStatistics component writes to {@code json_file_path}: an
     * {@code entities} array (count, execution time median / 90 % / max of the last {@code historyCount} ticks and
     * the total, in ms, load in % of the run) and, with {@code codeletStatistics}, a {@code codelets} array of
     * {@code {name: entity, entity: [codelet figures]}}. Numbers are cut to 5 decimals as GXF does. GXF's
     * {@code variation_*} fields (lateness against a target time) are not measured here and are left out.
     */
    public String toGxfJson(int historyCount, boolean codeletStatistics) {
        StringBuilder sb = new StringBuilder("{\n    \"entities\": [");
        for (int i = 0; i < entities.size(); i++) {
            EntityStatistics e = entities.get(i);
            RecentTicks r = e.recentTicks();
            double load = durationNs <= 0 ? 100.0 : Math.min(100.0, 100.0 * e.totalTickNs() / durationNs);
            sb.append(i == 0 ? "\n" : ",\n").append("        {")
                    .append("\"name\": ").append(quote(e.entity()))
                    .append(", \"count\": ").append(e.ticks())
                    .append(", \"execution_time_median_ms\": ").append(ms(r.quantile(0.5, historyCount)))
                    .append(", \"execution_time_90_ms\": ").append(ms(r.quantile(0.9, historyCount)))
                    .append(", \"execution_time_max_ms\": ").append(ms(e.maxTickNs()))
                    .append(", \"load_percentage\": ").append(decimal5(load))
                    .append(", \"execution_time_ms\": ").append(ms(e.totalTickNs())).append('}');
        }
        sb.append(entities.isEmpty() ? "]" : "\n    ]");
        if (codeletStatistics) {
            sb.append(",\n    \"codelets\": [");
            for (int i = 0; i < entities.size(); i++) {
                EntityStatistics e = entities.get(i);
                sb.append(i == 0 ? "\n" : ",\n").append("        {\"name\": ").append(quote(e.entity()))
                        .append(", \"entity\": [");
                for (int j = 0; j < e.codelets().size(); j++) {
                    CodeletStatistics c = e.codelets().get(j);
                    double perMs = c.totalTickNs() == 0 ? 0 : c.ticks() / (c.totalTickNs() / 1e6);
                    sb.append(j == 0 ? "" : ", ").append("{\"codelet_name\": ").append(quote(c.codelet()))
                            .append(", \"count\": ").append(c.ticks())
                            .append(", \"execution_time_mean_ms\": ").append(decimal5(c.meanTickNs() / 1e6))
                            .append(", \"execution_time_90_ms\": ")
                            .append(ms(c.recentTicks().quantile(0.9, historyCount)))
                            .append(", \"execution_time_max_ms\": ").append(ms(c.maxTickNs()))
                            .append(", \"tick_frequency_per_ms\": ").append(decimal5(perMs)).append('}');
                }
                sb.append("]}");
            }
            sb.append(entities.isEmpty() ? "]" : "\n    ]");
        }
        return sb.append("\n}\n").toString();
    }

    private static String ms(long ns) {
        return decimal5(ns / 1e6);
    }

    /** GXF's rounding: +0.000005, then cut after the fifth decimal. */
    private static String decimal5(double d) {
        double cut = Math.floor((d + 0.000005) * 100000) / 100000.0;
        return new java.math.BigDecimal(cut).setScale(5, java.math.RoundingMode.HALF_EVEN).stripTrailingZeros()
                .toPlainString();
    }

    /** Writes {@link #toJson()} to a file. */
    public void writeJson(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, toJson());
    }

    private static String number(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }

}
