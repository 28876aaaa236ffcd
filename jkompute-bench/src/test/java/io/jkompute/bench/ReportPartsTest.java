package io.jkompute.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The parts that need no GPU: statistics, size parsing, option checks, JSON escaping, ratio targets. */
class ReportPartsTest {
    @Test
    void summaryPercentilesAreNearestRank() {
        double[] v = new double[100];
        for (int i = 0; i < 100; i++) v[i] = 100 - i; // 100 .. 1, unsorted on purpose
        Summary s = Summary.of(v);
        assertEquals(1, s.min());
        assertEquals(10, s.p10());
        assertEquals(50, s.p50());
        assertEquals(90, s.p90());
        assertEquals(99, s.p99());
        assertEquals(100, s.max());
        assertEquals(160.0, s.spreadPercent(), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> Summary.of(new double[0]));
    }

    @Test
    void reciprocalTurnsNanosecondsIntoRates() {
        Summary ns = Summary.of(new double[] {1000, 2000, 4000});
        Summary gbs = ns.reciprocal(4000);
        assertEquals(2.0, gbs.p50());
        assertEquals(1.0, gbs.min());
        assertEquals(4.0, gbs.max());
    }

    @Test
    void sizesParseInBinaryUnits() {
        assertEquals(64L << 10, BenchOptions.parseSize("64K"));
        assertEquals(16L << 20, BenchOptions.parseSize("16MiB"));
        assertEquals(1L << 30, BenchOptions.parseSize("1g"));
        assertEquals(4096, BenchOptions.parseSize("4096"));
        assertArrayEquals(new long[] {1L << 20, 4L << 20, 1L << 30}, BenchOptions.parseSizes(List.of("1M,4M", "1G")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BenchOptions.parseSize("lots"));
        assertTrue(e.getMessage().contains("'lots' is not a size"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parseSize("0M"));
    }

    @Test
    void optionsRejectUnknownSuitesAndOddSizes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new BenchOptions(List.of("bandwith"), BenchOptions.QUICK_SIZES, true));
        assertTrue(e.getMessage().contains("unknown suite 'bandwith'") && e.getMessage().contains("bandwidth"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new BenchOptions(BenchOptions.SUITES, new long[] {100}, true));
        assertTrue(e.getMessage().contains("multiples of 16"), e.getMessage());
        BenchOptions o = new BenchOptions(List.of("latency"), new long[] {4L << 20, 1L << 20}, false);
        assertArrayEquals(new long[] {1L << 20, 4L << 20}, o.sizes(), "sizes are sorted");
        assertEquals("1 GiB", BenchOptions.formatBytes(1L << 30));
        assertEquals("64 KiB", BenchOptions.formatBytes(64L << 10));
    }

    @Test
    void ratiosKnowFloorsAndCeilings() {
        assertTrue(new Ratio("s", "bw", 0.96, 0.95, true, "").met());
        assertFalse(new Ratio("s", "bw", 0.94, 0.95, true, "").met());
        assertTrue(new Ratio("s", "lat", 1.1, 1.2, false, "").met());
        assertFalse(new Ratio("s", "lat", 1.3, 1.2, false, "").met());
        assertEquals("≤ 1.20", new Ratio("s", "lat", 1.3, 1.2, false, "").targetText());
        assertFalse(Ratio.info("s", "x", 0.1, "").hasTarget());
    }

    @Test
    void markdownRegenerationKeepsTheHandWrittenPart() {
        String old = "# old tables\n" + MarkdownReport.KEEP + "\n## Analysis\nkept\n";
        assertEquals("# new\n\n" + MarkdownReport.KEEP + "\n## Analysis\nkept\n", MarkdownReport.merge("# new\n", old));
        assertEquals("# new\n", MarkdownReport.merge("# new\n", "# no marker\n"));
        assertEquals("# new\n", MarkdownReport.merge("# new\n", null));
    }

    @Test
    void jsonStringsAreEscaped() {
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\"", JsonReport.str("a\"b\\c\nd\u0001"));
        assertEquals("null", JsonReport.num(Double.NaN));
    }
}
