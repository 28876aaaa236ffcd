package io.jkompute.net;

import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.Graph;
import io.jkompute.graph.JobStatistics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The network links of a run next to its job statistics: {@code jkompute run --stats FILE} writes the graph's
 * JSON with a {@code "links"} array, one object per UcxTransmitter / UcxReceiver:
 * <pre>
 * {"component": "rx/signal", "type": "UcxReceiver", "link": "…", "sent": 100, "delivered": 100, "dropped": 0,
 *  "bytes": 5300}
 * </pre>
 * plus {@code "fragment"} when a driver gathered them from its workers. Take the figures after the graph is closed:
 * a transmitter waits, as it closes, until its receiver has confirmed every message, so its {@code delivered} is
 * exact only then (while the run ends it may still lag by the messages in flight).
 */
public final class NetStatistics {
    private NetStatistics() {
    }

    /** One end of a link: the component, its type, and what crossed. {@code fragment} is null in one process. */
    public record Link(String fragment, String component, String type, LinkStatistics statistics) {
        String toJson() {
            StringBuilder sb = new StringBuilder("{");
            if (fragment != null) {
                sb.append("\"fragment\": ").append(quote(fragment)).append(", ");
            }
            LinkStatistics s = statistics;
            return sb.append("\"component\": ").append(quote(component))
                    .append(", \"type\": ").append(quote(type))
                    .append(", \"link\": ").append(quote(s.link()))
                    .append(", \"sent\": ").append(s.sent())
                    .append(", \"delivered\": ").append(s.delivered())
                    .append(", \"dropped\": ").append(s.dropped())
                    .append(", \"bytes\": ").append(s.bytes())
                    .append(", \"rejected\": ").append(s.rejected()).append('}').toString();
        }
    }

    /** The graph's UcxTransmitters and UcxReceivers, in entity order. */
    public static List<Link> links(Graph graph) {
        List<Link> out = new ArrayList<>();
        for (Entity e : graph.entities()) {
            for (Component c : e.components()) {
                if (c instanceof UcxTransmitter t) {
                    out.add(new Link(null, e.name() + "/" + c.name(), "UcxTransmitter", t.linkStatistics()));
                } else if (c instanceof UcxReceiver r) {
                    out.add(new Link(null, e.name() + "/" + c.name(), "UcxReceiver", r.linkStatistics()));
                }
            }
        }
        return out;
    }

    /** {@link JobStatistics#toJson()} with a {@code "links"} array added (left out when there are none). */
    public static String json(JobStatistics statistics, List<Link> links) {
        String json = statistics.toJson();
        if (links.isEmpty()) {
            return json;
        }
        int end = json.lastIndexOf('}');
        StringBuilder sb = new StringBuilder(json.substring(0, end).stripTrailing()).append(",\n  \"links\": [");
        for (int i = 0; i < links.size(); i++) {
            sb.append(i == 0 ? "\n    " : ",\n    ").append(links.get(i).toJson());
        }
        return sb.append("\n  ]\n}\n").toString();
    }

    /** Writes {@link #json} to {@code file}, making its folder. */
    public static void writeJson(Path file, JobStatistics statistics, List<Link> links) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, json(statistics, links));
    }

    /** The {@code "links"} of a parsed statistics document (from a worker), tagged with its fragment. */
    @SuppressWarnings("unchecked")
    public static List<Link> parseLinks(String fragment, Map<String, Object> document) {
        List<Link> out = new ArrayList<>();
        Object list = document.get("links");
        if (list instanceof List<?> l) {
            for (Object o : l) {
                Map<String, Object> m = (Map<String, Object>) o;
                out.add(new Link(fragment, (String) m.get("component"), (String) m.get("type"),
                        new LinkStatistics((String) m.get("link"), num(m, "sent"), num(m, "delivered"),
                                num(m, "dropped"), num(m, "bytes"), num(m, "rejected"))));
            }
        }
        return out;
    }

    /** A JSON string literal. */
    static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static long num(Map<String, Object> m, String key) {
        return m.get(key) instanceof Number n ? n.longValue() : 0;
    }
}
