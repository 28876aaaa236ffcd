package io.jkompute.cli;

import io.jkompute.examples.Example;
import io.jkompute.examples.Examples;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code jkompute example NAME}: runs a shipped example; without a name, lists them. */
@Command(name = "example", description = "Run a shipped example; without NAME, list them.")
final class ExampleCommand implements Callable<Integer> {
    @Parameters(arity = "0..1", paramLabel = "NAME", description = "the example to run")
    String name;

    @Override
    public Integer call() {
        if (name == null) {
            System.out.println("examples (./jkompute example NAME):");
            for (Example e : Examples.all()) {
                System.out.printf("  %-22s %s%n", e.name(), e.description());
            }
            return 0;
        }
        Example e = Examples.byName(name).orElse(null);
        if (e == null) {
            System.err.println("no example called '" + name + "'; there are: "
                    + Examples.all().stream().map(Example::name).toList());
            return 2;
        }
        e.run(System.out);
        return 0;
    }
}
