package io.jkompute.graph;

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

    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
