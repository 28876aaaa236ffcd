package io.jkompute.graph.cuda;

import io.jkompute.cuda.Cuda;
import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.Graph;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;

/**
 * GXF's {@code nvidia::gxf::GPUDevice} resource: the CUDA device ({@code dev_id}) an app runs on. As in GXF's default
 * entity group, the first GPUDevice of the app is the resource of every CUDA component that does not name a device
 * itself ({@link CudaStreamPool}, CUDA device memory). An app with a GPUDevice needs CUDA: on a machine without a
 * CUDA driver or device it stops loading with one line saying so.
 */
public final class GPUDevice extends Component {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public GPUDevice() {
    }

    private Parameter<Long> devId;

    @Override
    protected void registerInterface(Registrar r) {
        devId = r.parameter("dev_id", ParameterTypes.INT64, "the CUDA device ordinal", 0L);
    }

    @Override
    protected void initialize() {
        requireCuda("GPUDevice");
        checkDevice(devId.get());
    }

    /** The CUDA device ordinal. */
    public int deviceId() {
        return (int) (long) devId.get();
    }

    /** The app's first GPUDevice (in file order), or null when it has none. */
    public static GPUDevice of(Graph graph) {
        for (Entity e : graph.entities()) {
            for (Component c : e.components()) {
                if (c instanceof GPUDevice d) {
                    return d;
                }
            }
        }
        return null;
    }

    /** The device a CUDA component of {@code graph} uses when it names none: the app's GPUDevice, else 0. */
    static int defaultDevice(Graph graph) {
        GPUDevice d = of(graph);
        return d == null ? 0 : d.deviceId();
    }

    /** Throws one line naming {@code what} and why CUDA cannot run here. */
    static void requireCuda(String what) {
        String why = Cuda.unavailableReason();
        if (why != null) {
            throw new IllegalStateException(what + " needs CUDA, which is not usable on this machine: "
                    + why.replace('\n', ' '));
        }
    }

    /** Checks that {@code id} names a CUDA device present here. */
    static void checkDevice(long id) {
        int count = Cuda.deviceCount();
        if (id < 0 || id >= count) {
            throw new IllegalArgumentException("parameter 'dev_id' is " + id + " but this machine has " + count
                    + " CUDA device" + (count == 1 ? "" : "s") + " (0.." + (count - 1) + ")");
        }
    }
}
