package io.jkompute.graph;

/**
 * How a parameter's value is read from YAML or Java: plain values arrive as Long, Double, Boolean, String,
 * List or Map; handles arrive as "comp" or "entity/comp" strings and are resolved against the graph.
 * Standard types are in {@link ParameterTypes}.
 */
public interface ParameterType<T> {
    /** Converts a raw value; throws {@link IllegalArgumentException} saying what was expected. */
    T parse(Object raw, HandleResolver resolver);

    /** A short name for messages ("int64", "handle to Receiver", ...). */
    String describe();

    /** Looks up components named in handle parameters, relative to the entity owning the parameter. */
    interface HandleResolver {
        /**
         * The component that {@code handle} names, of type {@code type}; throws {@link GraphLoadException} when there
         * is none or it has another type.
         */
        <C extends Component> C resolve(String handle, Class<C> type);
    }
}
