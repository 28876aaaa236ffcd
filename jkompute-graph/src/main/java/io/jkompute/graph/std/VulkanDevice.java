package io.jkompute.graph.std;

import io.jkompute.Manager;
import io.jkompute.graph.Component;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;

/**
 * A Vulkan device (a jkompute core {@link Manager}) shared by the components of a graph: device pools, kernel
 * codelets. Made at activation, closed when the graph closes. {@code device_index} (default 0);
 * {@code export_memory} (default false): its device pools make memory that CUDA can import (jkompute-cuda's
 * {@code GpuArray.fromTensor}), for apps where CUDA codelets read Vulkan tensors.
 */
public final class VulkanDevice extends Component {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public VulkanDevice() {
    }

    private Parameter<Long> deviceIndex;
    private Parameter<Boolean> exportMemory;
    private Manager manager;

    @Override
    protected void registerInterface(Registrar r) {
        deviceIndex = r.parameter("device_index", ParameterTypes.INT64, "which Vulkan device", 0L);
        exportMemory = r.parameter("export_memory", ParameterTypes.BOOL,
                "device pools make memory CUDA can import", false);
    }

    @Override
    protected void initialize() {
        long index = deviceIndex.get();
        if (index < 0 || index > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("parameter 'device_index' must be ≥ 0, got " + index);
        }
        manager = new Manager((int) index);
    }

    @Override
    protected void deinitialize() {
        if (manager != null) {
            manager.close();
            manager = null;
        }
    }

    /** Whether device pools on this device make exportable memory ({@code export_memory}). */
    public boolean exportsMemory() {
        return exportMemory.get();
    }

    /** The core Manager; valid between activation and close. */
    public Manager manager() {
        if (manager == null) {
            throw new IllegalStateException(path() + " is not active (the graph is not activated or is closed)");
        }
        return manager;
    }
}
