package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Feeds mutated variants of the shipped apps to the loader in-process: byte flips, truncation, duplicated lines (keys),
 * type swaps, deep nesting and huge numbers. Every outcome must be a load or a {@link GraphLoadException} that names
 * the file and a line; never another exception, a hang or a stack overflow. The count is
 * {@code -Djkompute.fuzz.variants=N} (default 1,000; 5,000 in the validation run CI makes; always a fixed seed, which
 * {@code -Djkompute.fuzz.seed} changes).
 */
class LoaderFuzzTest {
    private static final List<String> APPS =
            List.of("ping.yaml", "broadcast.yaml", "periodic-ping.yaml", "ping-broadcast.yaml", "gather.yaml");

    @TempDir
    Path dir;

    @Test
    void everyMutatedAppLoadsOrFailsWithFileAndLine() throws Exception {
        // 1,000 variants try each of the 6 mutations on each of the 5 apps about 30 times for ./jkompute test; the
        // validation run (CI, with JKOMPUTE_VALIDATION set) keeps the full 5,000
        int variants = Integer.getInteger("jkompute.fuzz.variants",
                System.getenv("JKOMPUTE_VALIDATION") != null ? 5_000 : 1_000);
        long seed = Long.getLong("jkompute.fuzz.seed", 20261122L);
        List<byte[]> sources = new ArrayList<>();
        for (String app : APPS) {
            sources.add(Files.readAllBytes(Graphs.APPS.resolve(app)));
        }
        Map<String, Integer> outcomes = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        Path file = dir.resolve("variant.yaml");
        long t0 = System.nanoTime();
        assertTimeoutPreemptively(Duration.ofSeconds(Math.max(120, variants / 50)), () -> {
            SplittableRandom rnd = new SplittableRandom(seed);
            for (int i = 0; i < variants; i++) {
                byte[] src = sources.get(rnd.nextInt(sources.size()));
                Mutation m = Mutation.values()[rnd.nextInt(Mutation.values().length)];
                byte[] variant = m.apply(src, rnd);
                Files.write(file, variant);
                String outcome = load(file);
                outcomes.merge(outcome.startsWith("BAD") ? "BAD" : outcome, 1, Integer::sum);
                if (outcome.startsWith("BAD") && failures.size() < 5) {
                    failures.add(m + " of variant " + i + ": " + outcome + "\n---\n"
                            + new String(variant, StandardCharsets.UTF_8).lines().limit(40).reduce("", (a, b) -> a + b + "\n"));
                }
            }
        });
        System.out.printf("loader fuzz: %d variants (seed %d) in %.1f s: %s%n", variants, seed,
                (System.nanoTime() - t0) / 1e9, outcomes);
        assertEquals(List.of(), failures);
        assertTrue(outcomes.getOrDefault("GraphLoadException", 0) > variants / 10,
                "the mutations should break most apps: " + outcomes);
    }

    @Test
    void deepNestingIsALoadErrorWithItsLine() throws Exception {
        Path file = dir.resolve("deep.yaml");
        Files.writeString(file, "%YAML 1.2\n---\nname: tx\ncomponents:\n- { name: a, type: " + "[".repeat(100_000) + "]".repeat(100_000) + " }\n");
        GraphLoadException e = org.junit.jupiter.api.Assertions.assertThrows(GraphLoadException.class, () -> Graph.load(file));
        assertEquals(file + ":5: bad YAML: collections nested deeper than 64 levels", e.getMessage());
    }

    /** "loaded", "GraphLoadException", or "BAD: ..." for any outcome the loader must never have. */
    private static String load(Path file) {
        try (Graph g = Graph.load(file)) {
            return "loaded";
        } catch (GraphLoadException e) {
            String msg = String.valueOf(e.getMessage());
            if (e.location() == null || !msg.startsWith(file.toString() + ":")) {
                return "BAD: GraphLoadException without file and line: " + msg;
            }
            return "GraphLoadException";
        } catch (StackOverflowError e) {
            return "BAD: StackOverflowError";
        } catch (RuntimeException | Error e) {
            return "BAD: " + e;
        }
    }

    enum Mutation {
        BYTE_FLIP {
            @Override
            byte[] apply(byte[] src, SplittableRandom rnd) {
                byte[] b = src.clone();
                for (int n = 1 + rnd.nextInt(4); n > 0; n--) {
                    b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
                }
                return b;
            }
        },
        TRUNCATE {
            @Override
            byte[] apply(byte[] src, SplittableRandom rnd) {
                return java.util.Arrays.copyOf(src, rnd.nextInt(src.length));
            }
        },
        DUPLICATE_LINE {
            @Override
            byte[] apply(byte[] src, SplittableRandom rnd) {
                List<String> lines = lines(src);
                int i = rnd.nextInt(lines.size());
                lines.add(i, lines.get(i));
                return join(lines);
            }
        },
        TYPE_SWAP {
            @Override
            byte[] apply(byte[] src, SplittableRandom rnd) {
                String[] swaps = {"[1, 2]", "{ a: 1 }", "\"text\"", "-1", "3.5", "true", "null", "~", "''"};
                List<String> lines = lines(src);
                int i = rnd.nextInt(lines.size());
                lines.set(i, lines.get(i).replaceFirst(":\\s*[^,}\\]]+", ": " + swaps[rnd.nextInt(swaps.length)]));
                return join(lines);
            }
        },
        DEEP_NESTING {
            @Override
            byte[] apply(byte[] src, SplittableRandom rnd) {
                int depth = 1_000 + rnd.nextInt(20_000);
                String open = rnd.nextBoolean() ? "[" : "{ a: ";
                String close = open.equals("[") ? "]" : " }";
                String deep = open.repeat(depth) + "1" + close.repeat(depth);
                List<String> lines = lines(src);
                int i = rnd.nextInt(lines.size());
                lines.set(i, lines.get(i).replaceFirst(":\\s*[^,}\\]]+", ": " + deep));
                return join(lines);
            }
        },
        HUGE_NUMBER {
            @Override
            byte[] apply(byte[] src, SplittableRandom rnd) {
                String[] huge = {"99999999999999999999999999", "-99999999999999999999", "1e400", "0x7fffffffffffffffff",
                        "18446744073709551616", ".inf", "-.inf", ".nan"};
                List<String> lines = lines(src);
                // a line with a number in it, not the %YAML directive
                List<Integer> numbered = java.util.stream.IntStream.range(1, lines.size())
                        .filter(n -> lines.get(n).matches(".*\\b\\d+\\b.*")).boxed().toList();
                int i = numbered.get(rnd.nextInt(numbered.size()));
                lines.set(i, lines.get(i).replaceFirst("\\b\\d+\\b", huge[rnd.nextInt(huge.length)]));
                return join(lines);
            }
        };

        abstract byte[] apply(byte[] src, SplittableRandom rnd);

        static List<String> lines(byte[] src) {
            return new ArrayList<>(new String(src, StandardCharsets.UTF_8).lines().toList());
        }

        static byte[] join(List<String> lines) {
            return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
        }
    }
}
