package io.jkompute.graph;

import java.util.Optional;

/**
 * One declared parameter of a component. Values are set by the graph loader (YAML, override documents,
 * {@code --param}) or from Java, and parsed when the graph activates.
 */
public final class Parameter<T> {
    private final String key;
    private final ParameterType<T> type;
    private final String description;
    private final T defaultValue;
    private final boolean optional;
    private T value;
    private boolean set;

    Parameter(String key, ParameterType<T> type, String description, T defaultValue, boolean optional) {
        this.key = key;
        this.type = type;
        this.description = description;
        this.defaultValue = defaultValue;
        this.optional = optional;
        if (defaultValue != null) {
            value = defaultValue;
            set = true;
        }
    }

    /** The parameter's name in the YAML {@code parameters} map. */
    public String key() {
        return key;
    }

    /** How the YAML value is read. */
    public ParameterType<T> type() {
        return type;
    }

    /** What the parameter is for, as error messages show it. */
    public String description() {
        return description;
    }

    /** Whether the graph refuses to activate while this parameter is unset. */
    public boolean mandatory() {
        return !optional && defaultValue == null;
    }

    /** True once a value was given or the default applied. */
    public boolean isSet() {
        return set;
    }

    /** The value; throws if an optional parameter was never set. */
    public T get() {
        if (!set) {
            throw new IllegalStateException("parameter '" + key + "' is not set");
        }
        return value;
    }

    /** The value, or {@code fallback} when the parameter is not set. */
    public T orElse(T fallback) {
        return set ? value : fallback;
    }

    /** The value, or empty when the parameter is not set (or set to null). */
    public Optional<T> tryGet() {
        return set ? Optional.ofNullable(value) : Optional.empty();
    }

    /** Sets a parsed value (dynamic parameters may change at run time, e.g. {@code enable_tick}). */
    public void set(T v) {
        value = v;
        set = true;
    }

    void setParsed(Object parsed) {
        @SuppressWarnings("unchecked")
        T t = (T) parsed;
        set(t);
    }
}
