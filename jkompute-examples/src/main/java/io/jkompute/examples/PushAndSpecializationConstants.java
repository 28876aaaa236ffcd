package io.jkompute.examples;

import io.jkompute.Algorithm;
import io.jkompute.Constants;
import io.jkompute.Manager;
import io.jkompute.OpAlgoDispatch;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Shader;
import io.jkompute.Tensor;
import io.jkompute.Workgroup;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * Specialization constants fix values when the pipeline is built (here of mixed types, which Kompute did not allow);
 * push constants change per dispatch without rebuilding anything.
 */
public final class PushAndSpecializationConstants implements Example {
    /** Creates the example; {@link Examples#all()} lists it and the CLI runs it by name. */
    public PushAndSpecializationConstants() {
    }

    static final String SHADER = """
            #version 450
            layout (local_size_x = 1) in;
            layout (constant_id = 0) const float scale = 1.0;
            layout (constant_id = 1) const int bias = 0;
            layout (push_constant) uniform Push { float step; } pc;
            layout (set = 0, binding = 0) buffer A { float a[]; };
            void main() {
                uint i = gl_GlobalInvocationID.x;
                a[i] = a[i] * scale + pc.step * float(i) + float(bias);
            }
            """;

    @Override
    public String name() {
        return "constants";
    }

    @Override
    public String description() {
        return "specialization constants (float and int) and push constants overridden per dispatch";
    }

    /** Two dispatches: step 1.0 (the algorithm's own), then step 0.5 (an override). Returns the tensor. */
    public static float[] compute(Manager mgr) {
        Tensor a = mgr.tensor(new float[3]);
        Algorithm algo = mgr.algorithm(List.of(a), Shader.compile(SHADER), Workgroup.of(3),
                Constants.builder().float32(2.0f).int32(10).build(),
                Constants.floats(1.0f));
        mgr.eval(new OpSyncDevice(a),
                new OpAlgoDispatch(algo),                          // a = a*2 + 1.0*i + 10
                new OpAlgoDispatch(algo, Constants.floats(0.5f)),  // a = a*2 + 0.5*i + 10
                new OpSyncLocal(a));
        return a.toFloatArray();
    }

    @Override
    public void run(PrintStream out) {
        try (Manager mgr = new Manager()) {
            out.println("device: " + mgr.deviceProperties().name());
            out.println("scale=2 (spec, float), bias=10 (spec, int); step 1.0 then 0.5 (push): "
                    + Arrays.toString(compute(mgr)));
        }
    }

    /** Runs the example on the default device and prints its result. */
    public static void main(String[] args) {
        new PushAndSpecializationConstants().run(System.out);
    }
}
