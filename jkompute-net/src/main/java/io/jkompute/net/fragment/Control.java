package io.jkompute.net.fragment;

import io.jkompute.graph.StopReason;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The control protocol between the fragment driver and its workers, typed: one record per message, and one codec
 * ({@link #encode()} / {@link #decode(ControlMessage)}) to and from the {@link ControlMessage} text that goes on
 * the wire. Decoding checks every field (present, a number where a number belongs, a known stop reason, ports in
 * range) and throws IllegalArgumentException naming the message and the field, so the driver and the workers only
 * ever see well-formed messages.
 */
public sealed interface Control {
    /** worker → driver: who it is, what it asks for, where it listens, the ports it offers, the app's digest. */
    record Register(String id, String control, String address, List<String> fragments, List<Integer> ports,
                    String digest, long pid) implements Control {
        /** A registration with immutable copies of the lists. */
        public Register {
            fragments = List.copyOf(fragments);
            ports = List.copyOf(ports);
        }
    }

    /** driver → worker: refused, and why. */
    record Reject(String error) implements Control {
    }

    /** driver → worker: its fragments, every remote receiver's endpoint, the address to listen on. */
    record Assign(List<String> fragments, Map<String, String> endpoints, String bind, boolean gpuFallback)
            implements Control {
        /** An assignment with immutable copies of the fragments and endpoints. */
        public Assign {
            fragments = List.copyOf(fragments);
            endpoints = Map.copyOf(endpoints);
        }
    }

    /** worker → driver: a fragment's graph is loaded and activated. */
    record Loaded(String id, String fragment, long loadMs) implements Control {
    }

    /** driver → worker: run. */
    record Start() implements Control {
    }

    /** worker → driver: a fragment's run ended. */
    record Done(String id, String fragment, StopReason reason, String detail, long durationNs, String stats)
            implements Control {
    }

    /** worker → driver: a fragment failed ({@code phase} "load" or "run"). */
    record Failed(String id, String fragment, String phase, String error) implements Control {
    }

    /** driver → worker: stop every fragment and exit ({@code abort}: another fragment failed). */
    record Stop(boolean abort, String reason) implements Control {
    }

    /** worker → driver: stopped, exiting. */
    record Bye(String id) implements Control {
    }

    /** both ways, every 100 ms ({@code id} "driver" from the driver). */
    record Heartbeat(String id) implements Control {
    }

    /** The wire text of this message. */
    default ControlMessage encode() {
        return switch (this) {
            case Register r -> ControlMessage.of(ControlMessage.Type.REGISTER, "id", r.id(), "control", r.control(),
                    "address", r.address(), "fragments", String.join(",", r.fragments()), "ports",
                    String.join(",", r.ports().stream().map(String::valueOf).toList()), "digest", r.digest(), "pid",
                    Long.toString(r.pid()));
            case Reject r -> ControlMessage.of(ControlMessage.Type.REJECT, "error", r.error());
            case Assign a -> {
                StringBuilder eps = new StringBuilder();
                a.endpoints().entrySet().stream().sorted(Map.Entry.comparingByKey())
                        .forEach(e -> eps.append(eps.isEmpty() ? "" : ",").append(e.getKey()).append('=')
                                .append(e.getValue()));
                yield ControlMessage.of(ControlMessage.Type.ASSIGN, "fragments", String.join(",", a.fragments()),
                        "endpoints", eps.toString(), "bind", a.bind(), "gpu_fallback", Boolean.toString(a.gpuFallback()));
            }
            case Loaded l -> ControlMessage.of(ControlMessage.Type.LOADED, "id", l.id(), "fragment", l.fragment(),
                    "load_ms", Long.toString(l.loadMs()));
            case Start s -> ControlMessage.of(ControlMessage.Type.START);
            case Done d -> ControlMessage.of(ControlMessage.Type.DONE, "id", d.id(), "fragment", d.fragment(),
                    "reason", d.reason().name(), "detail", d.detail() == null ? "" : d.detail(), "duration_ns",
                    Long.toString(d.durationNs()), "stats", d.stats() == null ? "" : d.stats());
            case Failed f -> ControlMessage.of(ControlMessage.Type.FAILED, "id", f.id(), "fragment", f.fragment(),
                    "phase", f.phase(), "error", f.error());
            case Stop s -> ControlMessage.of(ControlMessage.Type.STOP, "abort", Boolean.toString(s.abort()), "reason",
                    s.reason());
            case Bye b -> ControlMessage.of(ControlMessage.Type.BYE, "id", b.id());
            case Heartbeat h -> ControlMessage.of(ControlMessage.Type.HEARTBEAT, "id", h.id());
        };
    }

    /** The typed message; IllegalArgumentException naming the message and field when anything is missing or wrong. */
    static Control decode(ControlMessage m) {
        return switch (m.type()) {
            case REGISTER -> new Register(m.required("id"), m.required("control"), m.required("address"),
                    list(m.get("fragments", "")), ports(m), m.required("digest"), m.number("pid"));
            case REJECT -> new Reject(m.required("error"));
            case ASSIGN -> new Assign(list(m.required("fragments")), endpoints(m.get("endpoints", "")),
                    m.required("bind"), bool(m, "gpu_fallback"));
            case LOADED -> new Loaded(m.required("id"), m.required("fragment"), m.number("load_ms"));
            case START -> new Start();
            case DONE -> new Done(m.required("id"), m.required("fragment"), reason(m), m.get("detail", ""),
                    m.number("duration_ns"), m.get("stats", ""));
            case FAILED -> {
                String phase = m.required("phase");
                if (!phase.equals("load") && !phase.equals("run")) {
                    throw new IllegalArgumentException("FAILED: phase '" + phase + "' is neither load nor run");
                }
                yield new Failed(m.required("id"), m.required("fragment"), phase, m.required("error"));
            }
            case STOP -> new Stop(bool(m, "abort"), m.get("reason", "the driver stopped the app"));
            case BYE -> new Bye(m.required("id"));
            case HEARTBEAT -> new Heartbeat(m.required("id"));
        };
    }

    private static List<String> list(String csv) {
        List<String> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            if (!s.isBlank()) {
                out.add(s);
            }
        }
        return out;
    }

    private static List<Integer> ports(ControlMessage m) {
        List<Integer> out = new ArrayList<>();
        for (String p : list(m.get("ports", ""))) {
            int port;
            try {
                port = Integer.parseInt(p);
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("REGISTER offers port '" + p + "'");
            }
            out.add(port);
        }
        return out;
    }

    private static Map<String, String> endpoints(String csv) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String kv : list(csv)) {
            int eq = kv.indexOf('=');
            if (eq <= 0 || eq == kv.length() - 1) {
                throw new IllegalArgumentException("ASSIGN: endpoint '" + kv + "' is not RECEIVER=HOST:PORT");
            }
            out.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return out;
    }

    private static boolean bool(ControlMessage m, String key) {
        String v = m.get(key, "false");
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException(m.type() + ": field '" + key + "' is not true or false: '" + v + "'");
        }
        return v.equals("true");
    }

    private static StopReason reason(ControlMessage m) {
        String r = m.required("reason");
        try {
            return StopReason.valueOf(r);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("DONE: unknown stop reason '" + r + "'");
        }
    }
}
