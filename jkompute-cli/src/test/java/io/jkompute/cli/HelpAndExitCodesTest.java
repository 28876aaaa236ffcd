package io.jkompute.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.bench.BenchOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** Help on every command, one exit-code convention, and short errors for bad input. No device is touched. */
class HelpAndExitCodesTest {
    static final List<String> COMMANDS =
            List.of("devices", "example", "run", "bench", "test", "build", "docs", "bundle", "java", "classpath", "help");

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        CommandLine cli = Main.command();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void topLevelHelpListsEveryCommand() {
        Result r = run("--help");
        assertEquals(0, r.code());
        for (String c : COMMANDS) {
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("  " + c + " ")), c + " missing from:\n" + r.out());
        }
        assertTrue(r.out().contains("Exit codes: 0 ok, 1 failure while running, 2 bad input."), r.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"devices", "example", "run", "bench", "test", "build", "docs", "bundle", "java", "classpath"})
    void everyCommandAnswersHelpAndH(String command) {
        for (String flag : List.of("--help", "-h")) {
            Result r = run(command, flag);
            assertEquals(0, r.code(), command + " " + flag + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: jkompute " + command), r.out());
            assertEquals("", r.err());
        }
        Result viaHelp = run("help", command);
        assertEquals(0, viaHelp.code());
        assertEquals(run(command, "--help").out(), viaHelp.out());
    }

    @Test
    void benchHelpListsEverySuiteFromTheCode() {
        String out = run("bench", "--help").out().replaceAll("\\s+", " ");
        assertTrue(out.contains("suite(s) to run: " + String.join(", ", BenchOptions.SUITES) + " (default: all)"), out);
        assertTrue(BenchOptions.SUITES.contains("chain"));
    }

    @Test
    void anUnknownOptionIsOneLineAndWhereToLook() {
        Result r = run("run", "--bogus", "app.yaml");
        assertEquals(2, r.code());
        assertEquals("", r.out());
        assertEquals(List.of("error: Unknown option: '--bogus'", "see 'jkompute run --help'"), r.err().lines().toList());
    }

    @Test
    void anUnknownCommandIsBadInput() {
        Result r = run("frobnicate");
        assertEquals(2, r.code());
        List<String> lines = r.err().lines().toList();
        assertEquals("error: unknown command 'frobnicate'", lines.get(0));
        assertEquals("see 'jkompute --help'", lines.get(lines.size() - 1));
        assertTrue(lines.size() <= 3, "the error, perhaps a suggestion, where to look: " + lines);
    }

    @Test
    void anUnknownSuiteIsBadInputBeforeAnyDeviceIsOpened() {
        Result r = run("bench", "--suite", "nope");
        assertEquals(2, r.code());
        assertEquals(List.of("error: unknown suite 'nope'; the suites are " + String.join(", ", BenchOptions.SUITES),
                "see 'jkompute bench --help'"), r.err().lines().toList());
    }

    @Test
    void aLauncherCommandRunDirectlyPointsAtTheLauncher() {
        Result r = run("classpath");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("./jkompute classpath"), r.err());
    }
}
