package io.jkompute.examples;

import java.util.List;
import java.util.Optional;

/** The shipped examples, by name. */
public final class Examples {
    private static final List<Example> ALL = List.of(
            new LogisticRegression(),
            new ArrayMultiplication(),
            new PushAndSpecializationConstants(),
            new AsyncQueues(),
            new io.jkompute.examples.cuda.GpuArrayRoundTrip());

    private Examples() {}

    /** Every shipped example, in the order {@code ./jkompute example} lists them. */
    public static List<Example> all() {
        return ALL;
    }

    /** The example called {@code name}, or empty. */
    public static Optional<Example> byName(String name) {
        return ALL.stream().filter(e -> e.name().equals(name)).findFirst();
    }
}
