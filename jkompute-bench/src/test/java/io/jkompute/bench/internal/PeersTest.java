package io.jkompute.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jkompute.bench.SuiteResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The peers' JSON becomes figures, checks and notes; a missing peer is a note, not a failure. */
class PeersTest {
    @Test
    void recordsWhatThePeersPrinted() {
        Recorder out = new Recorder("latency");
        List<String> ran = Peers.record(out, """
                {"peers": {"CuPy": "14.2.0"}, "missing": {"PyTorch": "ModuleNotFoundError: No module named 'torch'"},
                 "figures": [{"metric": "round trip", "impl": "CuPy RawKernel + synchronize", "bytes": 0, "unit": "µs",
                              "samples": [11.0, 12.0, 10.0]}],
                 "checks": [{"name": "tiny kernel CuPy", "failure": null}, {"name": "bad", "failure": "counter 3 is 7"}],
                 "notes": []}
                """);
        assertEquals(List.of("CuPy 14.2.0"), ran);
        SuiteResult r = out.result("t", 0);
        assertEquals(1, r.figures().size());
        assertEquals(11.0, r.figures().get(0).stats().p50());
        assertEquals(3, r.figures().get(0).stats().count());
        assertEquals(List.of(true, false), r.checks().stream().map(c -> c.passed()).toList());
        assertEquals(List.of("PyTorch peer not run: ModuleNotFoundError: No module named 'torch'", "peers in this run: CuPy 14.2.0"),
                r.notes());
    }

    @Test
    void aPythonThatCannotStartIsANote() {
        Recorder out = new Recorder("latency");
        assertEquals(List.of(), Peers.run(out, List.of("latency"), 5, "/nonexistent/python3"));
        SuiteResult r = out.result("t", 0);
        assertEquals(0, r.checks().size());
        assertEquals(1, r.notes().size());
        assertEquals(true, r.notes().get(0).startsWith("peers not run: /nonexistent/python3 could not be started"));
    }

    @Test
    void aFailingScriptsExceptionIsInTheNote() {
        org.junit.jupiter.api.Assumptions.assumeTrue(new java.io.File("/usr/bin/python3").canExecute()
                || System.getenv("PATH").contains("python"), "needs python3");
        Recorder out = new Recorder("cuda");
        // a malformed size makes peers.py raise before any peer runs
        assertEquals(List.of(), Peers.run(out, List.of("cuda", "--sizes", "many"), 60, "python3"));
        var r = out.result("t", 0);
        String note = r.notes().get(r.notes().size() - 1);
        assertEquals(true, note.contains("exited with 1") && note.contains("ValueError"), note);
    }
}
