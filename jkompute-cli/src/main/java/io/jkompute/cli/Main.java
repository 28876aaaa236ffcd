package io.jkompute.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code jkompute} command line. */
@Command(name = "jkompute", mixinStandardHelpOptions = true, version = "jkompute 0.1.0",
        description = "General-purpose GPU compute for Java.",
        subcommands = {
            DevicesCommand.class,
            ExampleCommand.class,
            RunCommand.class,
            BenchCommand.class,
        })
public final class Main {
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the CLI without exiting the JVM; returns the exit code. */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler(new UserErrorHandler());
        return cli.execute(args);
    }
}
