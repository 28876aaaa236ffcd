package io.jkompute.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What to run: which suites, which buffer sizes, and whether in quick mode (small sizes and few repetitions, for CI on
 * a CPU Vulkan driver; correctness checks still run, targets are reported but not enforced).
 *
 * @param suites suite names from {@link #SUITES}, in the order given
 * @param sizes  buffer sizes in bytes for the size sweeps (bandwidth, transfers, reduction); each a multiple of 16
 * @param quick  quick mode
 */
public record BenchOptions(List<String> suites, long[] sizes, boolean quick) {
    /** Every suite, in the order the report shows them. */
    public static final List<String> SUITES = List.of("bandwidth", "latency", "throughput", "transfers", "graph", "reduction", "chain", "cuda");
    /** Buffer sizes in bytes of a full run: 1 MiB to 1 GiB. */
    public static final long[] FULL_SIZES = {1L << 20, 4L << 20, 16L << 20, 64L << 20, 256L << 20, 1L << 30};
    /** Buffer sizes in bytes of a quick run: 64 KiB to 1 MiB. */
    public static final long[] QUICK_SIZES = {64L << 10, 256L << 10, 1L << 20};

    /**
     * Checks the options: known suites, at least one; sizes multiples of 16 bytes up to 16 GiB (sorted, copied). Throws
     * {@link IllegalArgumentException} otherwise.
     */
    public BenchOptions {
        suites = List.copyOf(suites);
        for (String s : suites) {
            if (!SUITES.contains(s)) {
                throw new IllegalArgumentException("unknown suite '" + s + "'; the suites are " + String.join(", ", SUITES));
            }
        }
        if (suites.isEmpty()) {
            throw new IllegalArgumentException("no suite selected; the suites are " + String.join(", ", SUITES));
        }
        sizes = sizes.clone();
        if (sizes.length == 0) {
            throw new IllegalArgumentException("no sizes given");
        }
        for (long b : sizes) {
            if (b < 16 || b % 16 != 0) {
                throw new IllegalArgumentException("size " + b + " bytes: sizes must be positive multiples of 16 bytes");
            }
            if (b > (16L << 30)) {
                throw new IllegalArgumentException("size " + formatBytes(b) + " is over the 16 GiB this suite allows");
            }
        }
        Arrays.sort(sizes);
    }

    /** Every suite at the full sizes. */
    public static BenchOptions full() {
        return new BenchOptions(SUITES, FULL_SIZES, false);
    }

    /** Every suite at the quick sizes, with small counts: every check on, no target enforced. */
    public static BenchOptions quickMode() {
        return new BenchOptions(SUITES, QUICK_SIZES, true);
    }

    /** The buffer sizes in bytes, ascending (a copy). */
    @Override
    public long[] sizes() {
        return sizes.clone();
    }

    /** Parses "64K", "1M", "1G", "1048576" (binary units) into bytes. */
    public static long parseSize(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        if (t.endsWith("IB")) t = t.substring(0, t.length() - 2);
        else if (t.endsWith("B") && t.length() > 1 && !Character.isDigit(t.charAt(t.length() - 2))) t = t.substring(0, t.length() - 1);
        long mul = 1;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'K' -> mul = 1L << 10;
                case 'M' -> mul = 1L << 20;
                case 'G' -> mul = 1L << 30;
                default -> { }
            }
        }
        String digits = mul == 1 ? t : t.substring(0, t.length() - 1);
        try {
            long v = Long.parseLong(digits);
            if (v <= 0) throw new NumberFormatException();
            return Math.multiplyExact(v, mul);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a size; write e.g. 64K, 16M or 1G");
        }
    }

    /** Parses a comma-separated list of sizes. */
    public static long[] parseSizes(List<String> items) {
        List<Long> out = new ArrayList<>();
        for (String item : items) {
            for (String p : item.split(",")) {
                if (!p.isBlank()) out.add(parseSize(p));
            }
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /** 1 MiB, 64 KiB, 1 GiB, or bytes. */
    public static String formatBytes(long b) {
        if (b >= (1L << 30) && b % (1L << 30) == 0) return (b >> 30) + " GiB";
        if (b >= (1L << 20) && b % (1L << 20) == 0) return (b >> 20) + " MiB";
        if (b >= (1L << 10) && b % (1L << 10) == 0) return (b >> 10) + " KiB";
        return b + " B";
    }
}
