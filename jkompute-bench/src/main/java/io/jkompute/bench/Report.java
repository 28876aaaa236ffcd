package io.jkompute.bench;

import java.util.List;
import java.util.stream.Stream;

/** Everything a run produced: the environment, the options, each suite's result, and how long it took. */
public record Report(Environment environment, BenchOptions options, List<SuiteResult> suites, double seconds) {

    /** Whether every correctness check of every suite passed. */
    public boolean checksPassed() {
        return suites.stream().allMatch(SuiteResult::checksPassed);
    }

    /** Every suite's ratios, in report order. */
    public Stream<Ratio> ratios() {
        return suites.stream().flatMap(s -> s.ratios().stream());
    }

    /** Every suite's correctness checks, in report order. */
    public Stream<Check> checks() {
        return suites.stream().flatMap(s -> s.checks().stream());
    }
}
