package io.jkompute.examples;

import io.jkompute.Algorithm;
import io.jkompute.Manager;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Sequence;
import io.jkompute.Shader;
import io.jkompute.Tensor;
import java.io.PrintStream;
import java.util.List;

/**
 * The logistic regression of Kompute's documentation: the GPU computes per-sample gradients, the host applies them.
 * The sequence is recorded once and evaluated 100 times.
 */
public final class LogisticRegression implements Example {
    /** Creates the example; {@link Examples#all()} lists it and the CLI runs it by name. */
    public LogisticRegression() {
    }

    static final String SHADER = """
            #version 450
            layout (local_size_x = 1) in;
            layout(set = 0, binding = 0) buffer bxi { float xi[]; };
            layout(set = 0, binding = 1) buffer bxj { float xj[]; };
            layout(set = 0, binding = 2) buffer by { float y[]; };
            layout(set = 0, binding = 3) buffer bwin { float win[]; };
            layout(set = 0, binding = 4) buffer bwouti { float wouti[]; };
            layout(set = 0, binding = 5) buffer bwoutj { float woutj[]; };
            layout(set = 0, binding = 6) buffer bbin { float bin[]; };
            layout(set = 0, binding = 7) buffer bbout { float bout[]; };
            layout(set = 0, binding = 8) buffer blout { float lout[]; };
            layout(set = 0, binding = 9) buffer bm { float m[]; };

            float sigmoid(float z) { return 1.0 / (1.0 + exp(-z)); }

            void main() {
                uint i = gl_GlobalInvocationID.x;
                vec2 w = vec2(win[0], win[1]);
                vec2 x = vec2(xi[i], xj[i]);
                float yHat = sigmoid(dot(w, x) + bin[0]);
                float dZ = yHat - y[i];
                vec2 dW = (1.0 / m[0]) * x * dZ;
                wouti[i] = dW.x;
                woutj[i] = dW.y;
                bout[i] = (1.0 / m[0]) * dZ;
                lout[i] = -((y[i] * log(yHat)) + ((1.0 - y[i]) * log(1.0 - yHat)));
            }
            """;

    /** The learned weights and bias. */
    public record Result(float w0, float w1, float b) {}

    @Override
    public String name() {
        return "logistic-regression";
    }

    @Override
    public String description() {
        return "train a 2-feature logistic regression for 100 iterations (Kompute's documentation example)";
    }

    /** Trains for {@code iterations} with the given learning rate on the documentation's data. */
    public static Result train(Manager mgr, int iterations, float learningRate) {
        Tensor xI = mgr.tensor(new float[] {0, 1, 1, 1, 1});
        Tensor xJ = mgr.tensor(new float[] {0, 0, 0, 1, 1});
        Tensor y = mgr.tensor(new float[] {0, 0, 0, 1, 1});
        Tensor wIn = mgr.tensor(new float[] {0.001f, 0.001f});
        Tensor wOutI = mgr.tensor(new float[5]);
        Tensor wOutJ = mgr.tensor(new float[5]);
        Tensor bIn = mgr.tensor(new float[] {0});
        Tensor bOut = mgr.tensor(new float[5]);
        Tensor lOut = mgr.tensor(new float[5]);
        Tensor m = mgr.tensor(new float[] {5});
        List<Tensor> params = List.of(xI, xJ, y, wIn, wOutI, wOutJ, bIn, bOut, lOut, m);

        mgr.eval(new OpSyncDevice(params));
        try (Algorithm algo = mgr.algorithm(params, Shader.compile(SHADER)); Sequence seq = mgr.sequence()) {
            seq.record(new OpSyncDevice(wIn, bIn))
                    .record(new OpAlgoDispatch(algo))
                    .record(new OpSyncLocal(wOutI, wOutJ, bOut, lOut));

            for (int it = 0; it < iterations; it++) {
                seq.eval();
                float[] w = wIn.toFloatArray();
                float b = bIn.toFloatArray()[0];
                float[] dwI = wOutI.toFloatArray();
                float[] dwJ = wOutJ.toFloatArray();
                float[] db = bOut.toFloatArray();
                for (int j = 0; j < db.length; j++) {
                    w[0] -= learningRate * dwI[j];
                    w[1] -= learningRate * dwJ[j];
                    b -= learningRate * db[j];
                }
                wIn.setData(w);
                bIn.setData(new float[] {b});
            }
            float[] w = wIn.toFloatArray();
            return new Result(w[0], w[1], bIn.toFloatArray()[0]);
        } finally {
            params.forEach(Tensor::close);
        }
    }

    @Override
    public void run(PrintStream out) {
        try (Manager mgr = new Manager()) {
            out.println("device: " + mgr.deviceProperties().name());
            Result r = train(mgr, 100, 0.1f);
            out.printf("after 100 iterations (learning rate 0.1): w = [%.6f, %.6f], b = %.6f%n", r.w0(), r.w1(), r.b());
            boolean ok = r.w0() > 0 && r.w0() < 0.01 && r.w1() > 1.5 && r.b() < 0.7;
            out.println(ok ? "expected: 0 < w0 < 0.01, w1 > 1.5, b < 0.7 -- holds"
                    : "expected: 0 < w0 < 0.01, w1 > 1.5, b < 0.7 -- DOES NOT HOLD");
        }
    }

    /** Runs the example on the default device and prints its result. */
    public static void main(String[] args) {
        new LogisticRegression().run(System.out);
    }
}
