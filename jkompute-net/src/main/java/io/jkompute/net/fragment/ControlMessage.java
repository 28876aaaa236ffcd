package io.jkompute.net.fragment;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The text form of a {@link Control} message on the wire: a type and text fields, sent as UTF-8 lines
 * ({@code TYPE}, then {@code key=value} with {@code \\}, newline and CR escaped). Small and readable in a packet dump.
 */
public record ControlMessage(Type type, Map<String, String> fields) {
    /** The phases of a distributed run, in order, plus liveness and the end. */
    public enum Type {
        /** worker → driver: id, requested fragments, control endpoint, address, free ports, app digest. */
        REGISTER,
        /** driver → worker: the worker was refused (error). */
        REJECT,
        /** driver → worker: its fragments and every remote receiver's endpoint. */
        ASSIGN,
        /** worker → driver: a fragment's graph is loaded and activated. */
        LOADED,
        /** driver → worker: run. */
        START,
        /** worker → driver: a fragment's run ended (reason, detail, duration, statistics JSON). */
        DONE,
        /** worker → driver: a fragment failed (phase load or run, error). */
        FAILED,
        /** driver → worker: stop every fragment and exit (abort=true when another fragment failed). */
        STOP,
        /** worker → driver: stopped, exiting. */
        BYE,
        /** both ways, every 100 ms. */
        HEARTBEAT
    }

    /** The message, with an immutable copy of its fields. */
    public ControlMessage {
        fields = Map.copyOf(fields);
    }

    /** A message of {@code type} from alternating keys and values; a null value leaves its key out. */
    public static ControlMessage of(Type type, String... keyValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                m.put(keyValues[i], keyValues[i + 1]);
            }
        }
        return new ControlMessage(type, m);
    }

    /** The value of {@code key}, or null. */
    public String get(String key) {
        return fields.get(key);
    }

    /** The value of {@code key}, or {@code dflt}. */
    public String get(String key, String dflt) {
        return fields.getOrDefault(key, dflt);
    }

    /** The message as the bytes the control channel sends. */
    public byte[] encode() {
        StringBuilder sb = new StringBuilder(type.name());
        for (Map.Entry<String, String> e : fields.entrySet()) {
            sb.append('\n').append(e.getKey()).append('=');
            String v = e.getValue();
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                switch (c) {
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    default -> sb.append(c);
                }
            }
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Decodes a message; an IllegalArgumentException naming what is wrong for anything malformed. */
    public static ControlMessage decode(byte[] bytes, int offset, int length) {
        String s = new String(bytes, offset, length, StandardCharsets.UTF_8);
        String[] lines = s.split("\n", -1);
        Type type;
        try {
            type = Type.valueOf(lines[0]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown control message type '" + abbreviate(lines[0]) + "'");
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int eq = lines[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(type + ": line " + i + " is not key=value: '"
                        + abbreviate(lines[i]) + "'");
            }
            String v = lines[i].substring(eq + 1);
            StringBuilder sb = new StringBuilder(v.length());
            for (int j = 0; j < v.length(); j++) {
                char c = v.charAt(j);
                if (c == '\\' && j + 1 < v.length()) {
                    char n = v.charAt(++j);
                    sb.append(n == 'n' ? '\n' : n == 'r' ? '\r' : n);
                } else {
                    sb.append(c);
                }
            }
            if (m.put(lines[i].substring(0, eq), sb.toString()) != null) {
                throw new IllegalArgumentException(type + ": key '" + abbreviate(lines[i].substring(0, eq))
                        + "' given twice");
            }
        }
        return new ControlMessage(type, m);
    }

    /** The field as a long; an IllegalArgumentException naming the field when it is missing or not a number. */
    public long number(String key) {
        String v = fields.get(key);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(type + ": field '" + key + "' is not a number: '"
                    + abbreviate(String.valueOf(v)) + "'");
        }
    }

    /** The field, which must be present. */
    public String required(String key) {
        String v = fields.get(key);
        if (v == null) {
            throw new IllegalArgumentException(type + " without its field '" + key + "'");
        }
        return v;
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }

    @Override
    public String toString() {
        return type + fields.toString();
    }
}
