package io.jkompute.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ScopeType;

/**
 * Entry point of the {@code jkompute} command line. Exit codes, the same for every command: 0 ok, 1 a failure
 * while running (a failed check, a missing driver, a graph that failed), 2 bad input (an unknown option or name, a
 * file that does not load).
 */
@Command(name = "jkompute", mixinStandardHelpOptions = true, scope = ScopeType.INHERIT, version = "jkompute 0.1.0",
        description = "General-purpose GPU compute for Java.",
        commandListHeading = "%nCommands:%n",
        footer = {"", "Exit codes: 0 ok, 1 failure while running, 2 bad input.",
            "'jkompute help COMMAND' or 'jkompute COMMAND --help' shows a command's options."},
        subcommands = {
            DevicesCommand.class,
            ExampleCommand.class,
            RunCommand.class,
            BenchCommand.class,
            LauncherCommands.Test.class,
            LauncherCommands.Build.class,
            LauncherCommands.Docs.class,
            LauncherCommands.Bundle.class,
            LauncherCommands.JavaProgram.class,
            LauncherCommands.Classpath.class,
            CommandLine.HelpCommand.class,
        })
public final class Main {
    /** Exit code of a failure while running. */
    static final int FAILURE = 1;
    /** Exit code of bad input: an unknown option, command or name, a file that does not load. */
    static final int BAD_INPUT = 2;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the CLI without exiting the JVM; returns the exit code. */
    public static int run(String... args) {
        return command().execute(args);
    }

    /** The command line with jkompute's error handling; help and errors go to its own writers. */
    static CommandLine command() {
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler(new UserErrorHandler());
        cli.setParameterExceptionHandler(new ShortUsageErrorHandler());
        return cli;
    }
}
