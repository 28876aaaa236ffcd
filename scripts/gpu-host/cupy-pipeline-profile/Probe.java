// The CUDA pipeline apps run N frames R times each in one JVM (after a 200-frame warm-up): frames/s per run, then the
// per-entity and per-codelet statistics of the last run. Compiled where a JDK is: javac -cp "$CP" -d DIR Probe.java
import io.jkompute.graph.Graph;
import io.jkompute.graph.RunResult;
import java.nio.file.Path;

/** Runs pipeline apps N frames, R runs each (after a 200-frame warm-up), printing frames/s and per-entity statistics. */
public class Probe {
    public static void main(String[] args) {
        Path apps = Path.of(args[0]);
        int frames = Integer.parseInt(args[1]);
        int runs = Integer.parseInt(args[2]);
        for (int k = 3; k < args.length; k++) {
            String app = args[k];
            try {
                run(apps.resolve(app), 200);
                double best = 0, sum = 0;
                RunResult last = null;
                StringBuilder rates = new StringBuilder();
                for (int r = 0; r < runs; r++) {
                    try (Graph g = Graph.loader().file(apps.resolve(app)).param("source/count/count=" + frames)
                            .param("verify/steps/codelet_params={ expected_count: " + frames + " }").load()) {
                        RunResult res = g.run();
                        long verified = g.entity("verify").tickCount();
                        double rate = frames / (res.durationNs() / 1e9);
                        rates.append(String.format(" %.0f%s", rate, verified == frames ? "" : "(VERIFIED " + verified + ")"));
                        best = Math.max(best, rate);
                        sum += rate;
                        last = res;
                    }
                }
                System.out.printf("RATE %s: mean %.0f best %.0f frames/s (%.1f us/frame) runs:%s%n", app, sum / runs, best,
                        1e6 * runs / sum, rates);
                System.out.println(last.statistics().toTable());
            } catch (Throwable t) {
                System.out.println("FAILED " + app + ": " + t);
                t.printStackTrace(System.out);
            }
        }
        System.exit(0);
    }

    static void run(Path app, int frames) {
        try (Graph g = Graph.loader().file(app).param("source/count/count=" + frames)
                .param("verify/steps/codelet_params={ expected_count: " + frames + " }").load()) {
            g.run();
        }
    }
}
