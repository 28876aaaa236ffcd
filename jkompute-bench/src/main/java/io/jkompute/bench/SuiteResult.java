package io.jkompute.bench;

import java.util.List;

/**
 * What one suite found. {@code skipped} is null when it ran, else why it did not; rows that could not run (say, raw
 * CUDA without a CUDA driver) are listed in {@code notes}.
 */
public record SuiteResult(String name, String title, List<Check> checks, List<Figure> figures, List<Ratio> ratios,
        List<String> notes, String skipped, double seconds) {

    /** Whether every correctness check of this suite passed. */
    public boolean checksPassed() {
        return checks.stream().allMatch(Check::passed);
    }
}
