package io.jkompute.bench.internal;

import io.jkompute.bench.Summary;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The suites' peers: CuPy and PyTorch doing the same work on the same GPU, through {@code python3} running the bundled
 * {@code peers.py} as a subprocess that prints one JSON object. A peer that does not import (lavapipe, CI) becomes a
 * note, never a failure; a peer whose result is wrong becomes a failed check and no figure. {@code JKOMPUTE_PYTHON}
 * names another interpreter.
 */
final class Peers {
    private Peers() {}

    /**
     * Runs {@code peers.py suite} and records its figures, checks and notes into {@code out}.
     *
     * @return the names of the peers that ran, with their versions ("CuPy 14.2.0")
     */
    static List<String> run(Context ctx, Recorder out, String suite, long timeoutSeconds) {
        List<String> args = new ArrayList<>(List.of(suite, "--seed", Long.toString(ctx.seed())));
        if (ctx.quick()) {
            args.add("--quick");
        }
        return run(out, args, timeoutSeconds, System.getenv().getOrDefault("JKOMPUTE_PYTHON", "python3"));
    }

    /** Runs {@code python peers.py args...} and records what it printed. */
    static List<String> run(Recorder out, List<String> args, long timeoutSeconds, String python) {
        String suite = args.get(0);
        Path script = null, errors = null;
        try {
            errors = Files.createTempFile("jkompute-peers", ".err");
            script = Files.createTempFile("jkompute-peers", ".py");
            try (InputStream in = Peers.class.getResourceAsStream("/io/jkompute/bench/peers.py")) {
                if (in == null) {
                    throw new IllegalStateException("peers.py is missing from the bench jar's resources");
                }
                Files.write(script, in.readAllBytes());
            }
            List<String> cmd = new ArrayList<>(List.of(python, script.toString()));
            cmd.addAll(args);
            Process p = new ProcessBuilder(cmd).redirectError(errors.toFile()).start();
            byte[] stdout;
            try (InputStream in = p.getInputStream()) {
                stdout = in.readAllBytes();
            }
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                out.note("peers (" + python + "): no answer within " + timeoutSeconds + " s, not run");
                return List.of();
            }
            if (p.exitValue() != 0) {
                out.note("peers (" + python + " peers.py " + suite + ") exited with " + p.exitValue() + ": not run"
                        + lastLine(errors));
                return List.of();
            }
            return record(out, new String(stdout, StandardCharsets.UTF_8));
        } catch (IOException e) {
            out.note("peers not run: " + python + " could not be started (" + e.getMessage() + ")");
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.note("peers not run: interrupted");
            return List.of();
        } finally {
            for (Path f : new Path[] {script, errors}) {
                if (f == null) continue;
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }

    /** The last non-blank line the script wrote to stderr (its exception), for the note; empty if none. */
    private static String lastLine(Path errors) {
        try {
            List<String> lines = Files.readAllLines(errors, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) return " (" + lines.get(i).strip() + ")";
            }
        } catch (IOException | RuntimeException ignored) {
            // no reason to add
        }
        return "";
    }

    /** Parses the script's JSON (YAML 1.2 reads JSON) and records it; package-visible for the parser's test. */
    @SuppressWarnings("unchecked")
    static List<String> record(Recorder out, String json) {
        Map<String, Object> root = (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(json);
        List<String> ran = new ArrayList<>();
        ((Map<String, Object>) root.get("peers")).forEach((name, version) -> ran.add(name + " " + version));
        ((Map<String, Object>) root.get("missing")).forEach((name, why) -> out.note(name + " peer not run: " + why));
        for (Map<String, Object> c : (List<Map<String, Object>>) root.get("checks")) {
            out.check((String) c.get("name"), (String) c.get("failure"));
        }
        for (Map<String, Object> f : (List<Map<String, Object>>) root.get("figures")) {
            List<Object> samples = (List<Object>) f.get("samples");
            double[] v = samples.stream().mapToDouble(x -> ((Number) x).doubleValue()).toArray();
            out.figure((String) f.get("metric"), (String) f.get("impl"), ((Number) f.get("bytes")).longValue(),
                    (String) f.get("unit"), Summary.of(v));
        }
        for (Object n : (List<Object>) root.get("notes")) {
            out.note((String) n);
        }
        if (!ran.isEmpty()) {
            out.note("peers in this run: " + String.join(", ", ran));
        }
        return ran;
    }
}
