package io.jkompute.graph;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/** The standard parameter types, with GXF's parsing rules. */
public final class ParameterTypes {
    private ParameterTypes() {
    }

    /** Signed 64-bit integer. */
    public static final ParameterType<Long> INT64 = simple("int64", raw -> {
        if (raw instanceof Long || raw instanceof Integer || raw instanceof Short || raw instanceof Byte) {
            return ((Number) raw).longValue();
        }
        throw expected("an integer", raw);
    });

    /** Unsigned 64-bit integer (values above Long.MAX_VALUE are refused). */
    public static final ParameterType<Long> UINT64 = simple("uint64", raw -> {
        long v = INT64.parse(raw, null);
        if (v < 0) {
            throw expected("a non-negative integer", raw);
        }
        return v;
    });

    /** 64-bit float; integers are accepted. */
    public static final ParameterType<Double> FLOAT64 = simple("float64", raw -> {
        if (raw instanceof Number n) {
            return n.doubleValue();
        }
        throw expected("a number", raw);
    });

    /** true / false. */
    public static final ParameterType<Boolean> BOOL = simple("bool", raw -> {
        if (raw instanceof Boolean b) {
            return b;
        }
        throw expected("true or false", raw);
    });

    /**
     * A string. As in GXF, a YAML map or list given to a string parameter arrives as its YAML text; a number
     * arrives as its decimal text.
     */
    public static final ParameterType<String> STRING = simple("string", raw -> {
        if (raw instanceof String s) {
            return s;
        }
        if (raw instanceof Map<?, ?> || raw instanceof List<?>) {
            return new Dump(DumpSettings.builder().build()).dumpToString(raw);
        }
        if (raw instanceof Number || raw instanceof Boolean) {
            return raw.toString();
        }
        throw expected("a string", raw);
    });

    /**
     * A YAML map of free-form values (codelet_params). A string is parsed as YAML text (GXF passes codelet
     * parameters as text); an empty string or null gives an empty map.
     */
    public static final ParameterType<Map<String, Object>> MAP = simple("map", raw -> {
        Object v = raw;
        if (raw instanceof String s) {
            v = s.isBlank() ? Map.of() : new Load(LoadSettings.builder().build()).loadFromString(s);
        }
        if (v == null) {
            return Map.of();
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, val) -> out.put(String.valueOf(k), val));
            return out;
        }
        throw expected("a map of key: value", raw);
    });

    /**
     * A period: a number of nanoseconds, or a number with unit {@code Hz}, {@code ms}, {@code s} (case-insensitive,
     * one optional space); must be above zero. Parsed to nanoseconds.
     */
    public static final ParameterType<Long> RECESS_PERIOD = simple("period (ns, or with unit Hz/ms/s)", raw -> {
        if (raw instanceof Long || raw instanceof Integer) {
            long v = ((Number) raw).longValue();
            if (v <= 0) {
                throw expected("a period above zero", raw);
            }
            return v;
        }
        if (!(raw instanceof String s)) {
            throw expected("a period like 100ms, 10Hz, 0.2s or 5000 (ns)", raw);
        }
        return parsePeriodNs(s);
    });

    /** Parses "100ms", "10Hz", "0.2s", "5000" (ns) to nanoseconds. */
    public static long parsePeriodNs(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        double factor;
        String number;
        if (t.endsWith("hz")) {
            number = t.substring(0, t.length() - 2);
            factor = -1;
        } else if (t.endsWith("ms")) {
            number = t.substring(0, t.length() - 2);
            factor = 1e6;
        } else if (t.endsWith("s")) {
            number = t.substring(0, t.length() - 1);
            factor = 1e9;
        } else {
            number = t;
            factor = 1;
        }
        if (number.endsWith(" ")) {
            number = number.substring(0, number.length() - 1);
        }
        double v;
        try {
            v = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw expected("a period like 100ms, 10Hz, 0.2s or 5000 (ns)", text);
        }
        if (!(v > 0) || Double.isInfinite(v)) {
            throw expected("a period above zero", text);
        }
        long ns = Math.round(factor < 0 ? 1e9 / v : v * factor);
        if (ns <= 0) {
            throw expected("a period of at least 1 ns", text);
        }
        return ns;
    }

    /** A handle to a component of the given class: {@code comp} (same entity) or {@code entity/comp}. */
    public static <C extends Component> ParameterType<C> handle(Class<C> type) {
        return new ParameterType<>() {
            @Override
            public C parse(Object raw, HandleResolver resolver) {
                if (type.isInstance(raw)) {
                    return type.cast(raw);
                }
                if (!(raw instanceof String s) || s.isBlank()) {
                    throw expected("a handle 'component' or 'entity/component' to a " + type.getSimpleName(), raw);
                }
                return resolver.resolve(s, type);
            }

            @Override
            public String describe() {
                return "handle to " + type.getSimpleName();
            }
        };
    }

    /** A YAML sequence of values of one type. */
    public static <T> ParameterType<List<T>> list(ParameterType<T> element) {
        return new ParameterType<>() {
            @Override
            public List<T> parse(Object raw, HandleResolver resolver) {
                if (!(raw instanceof List<?> l)) {
                    throw expected("a list of " + element.describe(), raw);
                }
                List<T> out = new ArrayList<>(l.size());
                for (int i = 0; i < l.size(); i++) {
                    try {
                        out.add(element.parse(l.get(i), resolver));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("item " + i + ": " + e.getMessage(), e);
                    }
                }
                return List.copyOf(out);
            }

            @Override
            public String describe() {
                return "list of " + element.describe();
            }
        };
    }

    /**
     * An enum given by name (case-insensitive) or by its GXF integer code ({@code ordinal} unless
     * the constants list says otherwise).
     */
    public static <E extends Enum<E>> ParameterType<E> enumeration(Class<E> type) {
        E[] constants = type.getEnumConstants();
        return simple("one of " + List.of(constants), raw -> {
            if (raw instanceof Long || raw instanceof Integer) {
                long i = ((Number) raw).longValue();
                if (i >= 0 && i < constants.length) {
                    return constants[(int) i];
                }
            } else if (raw instanceof String s) {
                for (E c : constants) {
                    if (c.name().equalsIgnoreCase(s) || c.toString().equalsIgnoreCase(s)) {
                        return c;
                    }
                }
            }
            throw expected("one of " + List.of(constants) + " (or 0.." + (constants.length - 1) + ")", raw);
        });
    }

    private interface Parser<T> {
        T parse(Object raw);
    }

    private static <T> ParameterType<T> simple(String name, Parser<T> parser) {
        return new ParameterType<>() {
            @Override
            public T parse(Object raw, HandleResolver resolver) {
                return parser.parse(raw);
            }

            @Override
            public String describe() {
                return name;
            }
        };
    }

    static IllegalArgumentException expected(String what, Object raw) {
        String got = raw == null ? "nothing" : raw instanceof String s ? "'" + s + "'"
                : raw.getClass().getSimpleName().toLowerCase(Locale.ROOT) + " " + raw;
        return new IllegalArgumentException("expected " + what + ", got " + got);
    }
}
