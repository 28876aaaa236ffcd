package io.jkompute.bench;

/**
 * jkompute against a baseline: {@code value = jkompute / baseline}, and its goal when there is one
 * (NaN when the ratio is informational). {@code atLeast} says whether the target is a floor (bandwidth) or a ceiling
 * (latency).
 */
public record Ratio(String suite, String name, double value, double target, boolean atLeast, String note) {
    /** A ratio without a target, shown for information. */
    public static Ratio info(String suite, String name, double value, String note) {
        return new Ratio(suite, name, value, Double.NaN, true, note);
    }

    /** Whether the ratio has a target (else it is informational). */
    public boolean hasTarget() {
        return !Double.isNaN(target);
    }

    /** Whether the target is met (true when there is none). */
    public boolean met() {
        if (!hasTarget()) return true;
        return atLeast ? value >= target : value <= target;
    }

    /** "≥ 0.95", "≤ 1.20" or "—". */
    public String targetText() {
        return hasTarget() ? (atLeast ? "≥ " : "≤ ") + String.format("%.2f", target) : "—";
    }
}
