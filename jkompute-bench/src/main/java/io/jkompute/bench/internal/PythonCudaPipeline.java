package io.jkompute.bench.internal;

import io.jkompute.bench.Summary;
import io.jkompute.cuda.Cuda;
import io.jkompute.graph.Graph;
import io.jkompute.graph.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The graph suite's CUDA pipeline rows: {@code apps/cuda-pipeline.yaml} (a Java codelet running a CUDA kernel) against
 * {@code apps/python-cuda-pipeline.yaml} (the same pipeline with the kernel in a CuPy codelet), frames/s, every frame
 * compared bit for bit with the CPU's result by VerifyEqual. Skipped where CUDA or CuPy is missing.
 */
final class PythonCudaPipeline {
    static final String JAVA = "cuda-pipeline.yaml, Java CUDA codelet", PYTHON = "python-cuda-pipeline.yaml, CuPy codelet";

    private PythonCudaPipeline() {
    }

    static void run(Context ctx, Recorder out) {
        String why = Cuda.unavailableReason();
        Path apps = findApps();
        if (why != null || apps == null) {
            out.note("not run: CUDA pipeline, Java vs CuPy codelet: " + (why != null ? "CUDA is not usable: " + why
                    : "apps/python-cuda-pipeline.yaml not found from the working directory"));
            ctx.step("graph cuda pipeline java vs cupy");
            return;
        }
        int frames = ctx.quick() ? 200 : 5_000;
        int runs = ctx.quick() ? 1 : 7;
        String[][] pipelines = {{"cuda-pipeline.yaml", JAVA}, {"python-cuda-pipeline.yaml", PYTHON}};
        double[][] rates = new double[pipelines.length][runs];
        String[] failure = new String[pipelines.length];
        for (int k = 0; k < pipelines.length; k++) {
            try {
                runApp(apps.resolve(pipelines[k][0]), Math.min(frames, 200));
            } catch (RuntimeException e) {
                failure[k] = e.getMessage();
            }
        }
        // the two pipelines' runs alternate, so that the JIT's warm-up and any drift of the machine fall on both alike
        for (int r = 0; r < runs; r++) {
            for (int k = 0; k < pipelines.length; k++) {
                if (failure[k] != null) {
                    continue;
                }
                try (Graph g = Graph.loader().file(apps.resolve(pipelines[k][0])).param("source/count/count=" + frames)
                        .param("verify/steps/codelet_params={ expected_count: " + frames + " }").load()) {
                    RunResult result = g.run();
                    long verified = g.entity("verify").tickCount();
                    failure[k] = verified != frames ? "verified " + verified + " of " + frames + " (" + result + ")"
                            : null;
                    rates[k][r] = frames / (result.durationNs() / 1e9);
                } catch (RuntimeException e) {
                    failure[k] = e.getMessage();
                }
            }
        }
        for (int k = 0; k < pipelines.length; k++) {
            if (out.check(pipelines[k][1] + ": " + frames + " frames, each bit-identical to the CPU's", failure[k])) {
                out.figure("cuda pipeline rate", pipelines[k][1], 4096, "frames/s", Summary.of(rates[k]));
            }
        }
        out.ratio("cuda pipeline CuPy codelet / Java CUDA codelet", out.find("cuda pipeline rate", PYTHON, 4096),
                out.find("cuda pipeline rate", JAVA, 4096), 0.9, true, "goal: ≥ 0.9 × the Java codelet's frames/s");
        ctx.step("graph cuda pipeline java vs cupy");
    }

    private static void runApp(Path app, int frames) {
        try (Graph g = Graph.loader().file(app).param("source/count/count=" + frames)
                .param("verify/steps/codelet_params={ expected_count: " + frames + " }").load()) {
            g.run();
        }
    }

    private static Path findApps() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve("apps");
            if (Files.isRegularFile(p.resolve("python-cuda-pipeline.yaml"))) {
                return p;
            }
        }
        return null;
    }
}
