package io.jkompute.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The commands the {@code ./jkompute} launcher runs itself, since they need Maven, the JDK or the shell rather than
 * a running jkompute: declared here so that {@code --help} lists every command and each answers its own
 * {@code --help}. Reached through this class (e.g. {@code java -cp … io.jkompute.cli.Main build}), they say so.
 */
final class LauncherCommands {
    private LauncherCommands() {
    }

    /** Base of the launcher's commands: run directly, they point at the launcher and fail as bad input. */
    abstract static class LauncherCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(arity = "0..*", paramLabel = "ARG", hidden = true)
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            String name = spec.name();
            spec.commandLine().getErr().println("error: '" + name + "' is run by the ./jkompute launcher at the repository root: ./jkompute "
                    + name + (args.isEmpty() ? "" : " " + String.join(" ", args)));
            return Main.BAD_INPUT;
        }
    }

    @Command(name = "test", description = {"Run every module's JUnit 5 suite (Maven; offline once fetched).",
        "Arguments go to Maven, e.g. ./jkompute test -pl jkompute-core -Dtest=TensorTest"})
    static final class Test extends LauncherCommand {
    }

    @Command(name = "build", description = {"Build the project now.",
        "Module jars and their dependencies go to .jkompute/lib; other commands build by themselves when the",
        "library sources changed."})
    static final class Build extends LauncherCommand {
    }

    @Command(name = "docs", description = {"Build the API docs.",
        "Javadoc of every module's exported packages, aggregated into target/reports/apidocs; prints the path",
        "of its index.html."})
    static final class Docs extends LauncherCommand {
    }

    @Command(name = "bundle", description = {"Pack a Java runtime and the jars for a GPU host without Java.",
        "A jlink'd Java 25, the Vulkan loader and the jars go into .bundle/ (kept under 64 MB); on the host,",
        "'source .bundle/env.sh' sets JAVA_HOME and CP."})
    static final class Bundle extends LauncherCommand {
    }

    @Command(name = "java", description = {"Run your own program with jkompute's JDK, jars and JVM flags.",
        "  ./jkompute java MyApp.java [args]           a source file, compiled on the fly",
        "  ./jkompute java -cp DIR my.pkg.Main [args]  your classes first, then jkompute's"})
    static final class JavaProgram extends LauncherCommand {
    }

    @Command(name = "classpath", description = {"Print the class path of jkompute's jars.",
        "Colon-separated, e.g. javac -cp \"$(./jkompute classpath)\" MyApp.java"})
    static final class Classpath extends LauncherCommand {
    }
}
