package io.jkompute.graph;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects the parameters a component declares (GXF's registrar). Parameters are mandatory unless they have a
 * default or are declared optional.
 */
public final class Registrar {
    private final Map<String, Parameter<?>> parameters = new LinkedHashMap<>();

    Registrar() {
    }

    /** A parameter that must be given (no default). */
    public <T> Parameter<T> parameter(String key, ParameterType<T> type, String description) {
        return add(new Parameter<>(key, type, description, null, false));
    }

    /** A parameter with a default value used when none is given. */
    public <T> Parameter<T> parameter(String key, ParameterType<T> type, String description, T defaultValue) {
        return add(new Parameter<>(key, type, description, defaultValue, false));
    }

    /** A parameter that may stay unset; read it with {@link Parameter#isSet()} / {@link Parameter#orElse}. */
    public <T> Parameter<T> optional(String key, ParameterType<T> type, String description) {
        return add(new Parameter<>(key, type, description, null, true));
    }

    /** Shorthand for a handle to another component of the given class. */
    public <C extends Component> Parameter<C> handle(String key, Class<C> type, String description) {
        return parameter(key, ParameterTypes.handle(type), description);
    }

    /** Shorthand for an optional handle. */
    public <C extends Component> Parameter<C> optionalHandle(String key, Class<C> type, String description) {
        return optional(key, ParameterTypes.handle(type), description);
    }

    /** Shorthand for a list of handles, empty by default. */
    public <C extends Component> Parameter<List<C>> handles(String key, Class<C> type, String description) {
        return parameter(key, ParameterTypes.list(ParameterTypes.handle(type)), description, List.of());
    }

    private <T> Parameter<T> add(Parameter<T> p) {
        if (parameters.putIfAbsent(p.key(), p) != null) {
            throw new IllegalStateException("parameter '" + p.key() + "' registered twice");
        }
        return p;
    }

    Map<String, Parameter<?>> parameters() {
        return parameters;
    }
}
