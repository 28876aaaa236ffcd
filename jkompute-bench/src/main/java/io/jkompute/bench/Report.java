package io.jkompute.bench;

import java.util.List;
import java.util.stream.Stream;

/** Everything a run produced: the environment, the options, each suite's result, and how long it took. */
public record Report(Environment environment, BenchOptions options, List<SuiteResult> suites, double seconds) {

    public boolean checksPassed() {
        return suites.stream().allMatch(SuiteResult::checksPassed);
    }

    public Stream<Ratio> ratios() {
        return suites.stream().flatMap(s -> s.ratios().stream());
    }

    public Stream<Check> checks() {
        return suites.stream().flatMap(s -> s.checks().stream());
    }
}
