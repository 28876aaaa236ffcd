package io.jkompute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A dispatch with more invocations than its output tensor has elements: with robust buffer access (enabled where the
 * device offers it, lavapipe included) the writes past the end are dropped, and the tensors allocated next to it
 * keep their values. lavapipe bounds-checks every buffer access anyway (the dispatch test passes there with robust
 * access off too), so on lavapipe it is the feature check that fails if robust access is not enabled; the dispatch
 * test is what proves it on hardware GPUs.
 */
class RobustAccessTest extends GpuTestBase {
    private static final String WRITE_ALL = """
            #version 450
            layout (local_size_x = 1) in;
            layout (set = 0, binding = 0) buffer O { float o[]; };
            void main() { o[gl_GlobalInvocationID.x] = 7.0; }
            """;

    @Test
    void robustBufferAccessIsEnabledWhereOffered() {
        try (org.lwjgl.system.MemoryStack stack = org.lwjgl.system.MemoryStack.stackPush()) {
            org.lwjgl.vulkan.VkPhysicalDeviceFeatures f = org.lwjgl.vulkan.VkPhysicalDeviceFeatures.calloc(stack);
            org.lwjgl.vulkan.VK10.vkGetPhysicalDeviceFeatures(mgr.device().handle().getPhysicalDevice(), f);
            org.junit.jupiter.api.Assertions.assertEquals(f.robustBufferAccess(), mgr.device().robustBufferAccess(),
                    "robustBufferAccess offered by " + mgr.deviceProperties().name() + " but not enabled");
            org.junit.jupiter.api.Assumptions.assumeTrue(f.robustBufferAccess(), "the device does not offer it");
        }
    }

    @Test
    void anOutOfBoundsWriteLeavesTheNeighboursIntact() {
        float[] values = new float[64];
        for (int i = 0; i < values.length; i++) {
            values[i] = i + 1;
        }
        // host-visible memory from one VMA block: the neighbours lie right after the output, within reach of the
        // dispatch's extra invocations (3 of them write past a 2-element output, 64 reach 248 bytes beyond it)
        try (Tensor out = mgr.tensor(new float[2], MemoryType.HOST);
                Tensor next = mgr.tensor(values.clone(), MemoryType.HOST);
                Tensor after = mgr.tensor(values.clone(), MemoryType.HOST)) {
            for (int invocations : new int[] {3, 64}) {
                try (Algorithm a = mgr.algorithm(List.of(out), Shader.compile(WRITE_ALL), Workgroup.of(invocations, 1, 1))) {
                    run(new OpAlgoDispatch(a));
                }
                assertArrayEquals(new float[] {7, 7}, out.toFloatArray());
                assertArrayEquals(values, next.toFloatArray(), invocations + " invocations wrote into the next tensor");
                assertArrayEquals(values, after.toFloatArray(), invocations + " invocations wrote into a later tensor");
            }
        }
    }
}
