package io.jkompute;

import java.util.HexFormat;
import java.util.List;

/**
 * What a Vulkan device is and can do: identity, limits that matter for compute, optional features and queues.
 *
 * @param index            position in the instance's device list (the index {@link Manager} takes)
 * @param name             e.g. "NVIDIA H100 80GB HBM3" or "llvmpipe (LLVM 15.0.6, 256 bits)"
 * @param type             DISCRETE_GPU, INTEGRATED_GPU, VIRTUAL_GPU, CPU or OTHER
 * @param apiVersion       Vulkan version the device supports, "1.3.239"
 * @param driverVersion    the driver's own version number, decoded the way its vendor encodes it
 * @param vendorId         PCI vendor id (0x10DE is NVIDIA)
 * @param deviceUuid       the device's UUID, the same one CUDA reports for the same GPU
 * @param deviceLocalBytes size of the largest device-local memory heap
 * @param limits           compute limits
 * @param features         optional features
 * @param queueFamilies    the device's queue families
 */
public record DeviceProperties(
        int index,
        String name,
        String type,
        String apiVersion,
        String driverVersion,
        int vendorId,
        byte[] deviceUuid,
        long deviceLocalBytes,
        Limits limits,
        Features features,
        List<QueueFamily> queueFamilies) {

    /** Compute limits of the device. */
    public record Limits(
            int[] maxComputeWorkGroupCount,
            int[] maxComputeWorkGroupSize,
            int maxComputeWorkGroupInvocations,
            int maxComputeSharedMemorySize,
            int maxPushConstantsSize,
            long maxStorageBufferRange,
            int maxBoundDescriptorSets,
            float timestampPeriodNanos,
            int subgroupSize) {}

    /** Optional features; jkompute enables every one the device has. */
    public record Features(
            boolean float64,
            boolean int64,
            boolean int16,
            boolean float16,
            boolean int8,
            boolean storageBuffer8Bit,
            boolean storageBuffer16Bit,
            boolean timestamps,
            boolean timelineSemaphores,
            boolean bufferDeviceAddress) {}

    /**
     * One queue family: its index, how many queues it has, and what they do.
     * {@code sequence(i)} of a Manager made with family indices {a, b} runs on a queue of family a for i=0.
     */
    public record QueueFamily(int index, int queueCount, boolean compute, boolean graphics, boolean transfer,
            int timestampValidBits) {}

    /** The UUID as 32 hex digits. */
    public String deviceUuidHex() {
        return HexFormat.of().formatHex(deviceUuid);
    }

    @Override
    public String toString() {
        return "#" + index + " " + name + " (" + type + ", Vulkan " + apiVersion + ")";
    }
}
