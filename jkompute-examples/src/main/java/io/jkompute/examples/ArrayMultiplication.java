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
import java.util.Arrays;
import java.util.List;

/** Kompute's first example: multiply two arrays element by element with a GLSL shader compiled at run time. */
public final class ArrayMultiplication implements Example {
    /** Creates the example; {@link Examples#all()} lists it and the CLI runs it by name. */
    public ArrayMultiplication() {
    }

    static final String SHADER = """
            #version 450
            layout (local_size_x = 1) in;
            layout(set = 0, binding = 0) buffer A { float a[]; };
            layout(set = 0, binding = 1) buffer B { float b[]; };
            layout(set = 0, binding = 2) buffer O { float o[]; };
            void main() {
                uint i = gl_GlobalInvocationID.x;
                o[i] = a[i] * b[i];
            }
            """;

    @Override
    public String name() {
        return "array-multiplication";
    }

    @Override
    public String description() {
        return "multiply [2,4,6] by [0,1,2] with a GLSL shader (Kompute's first example)";
    }

    /** Returns out = a * b computed on the GPU. */
    public static float[] multiply(Manager mgr, float[] a, float[] b) {
        Tensor ta = mgr.tensor(a);
        Tensor tb = mgr.tensor(b);
        Tensor out = mgr.tensor(new float[a.length]);
        // binding i = position i; workgroups default to (a.length, 1, 1)
        Algorithm algo = mgr.algorithm(List.of(ta, tb, out), Shader.compile(SHADER));
        try (Sequence seq = mgr.sequence()) {
            seq.record(new OpSyncDevice(ta, tb))
                    .record(new OpAlgoDispatch(algo))
                    .record(new OpSyncLocal(out))
                    .eval();
        }
        return out.toFloatArray();
    }

    @Override
    public void run(PrintStream out) {
        try (Manager mgr = new Manager()) {
            out.println("device: " + mgr.deviceProperties().name());
            float[] r = multiply(mgr, new float[] {2, 4, 6}, new float[] {0, 1, 2});
            out.println("[2, 4, 6] * [0, 1, 2] = " + Arrays.toString(r));
        }
    }

    /** Runs the example on the default device and prints its result. */
    public static void main(String[] args) {
        new ArrayMultiplication().run(System.out);
    }
}
