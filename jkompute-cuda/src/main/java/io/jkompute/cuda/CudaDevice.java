package io.jkompute.cuda;

import java.util.UUID;

/**
 * What a CUDA device is: name, compute capability, memory and limits, read once from the driver.
 *
 * @param index                   the device ordinal used by {@link Cuda#setDevice(int)}
 * @param name                    the product name, e.g. "NVIDIA H100 80GB HBM3"
 * @param computeCapabilityMajor  e.g. 9 for Hopper
 * @param computeCapabilityMinor  e.g. 0
 * @param totalMemory             bytes of device memory
 * @param multiprocessorCount     number of streaming multiprocessors
 * @param maxThreadsPerBlock      largest block a kernel may be launched with
 * @param warpSize                threads per warp
 * @param maxSharedMemoryPerBlock bytes of shared memory a block may use without opt-in
 * @param l2CacheSize             bytes of L2 cache
 * @param pciBusId                the PCI bus number
 * @param uuid                    the device UUID, the same one Vulkan reports as deviceUUID (for interop)
 */
public record CudaDevice(int index, String name, int computeCapabilityMajor, int computeCapabilityMinor,
                         long totalMemory, int multiprocessorCount, int maxThreadsPerBlock, int warpSize,
                         int maxSharedMemoryPerBlock, long l2CacheSize, int pciBusId, UUID uuid) {

    /** "sm_90" style architecture name, as NVRTC and nvcc take it. */
    public String architecture() {
        return "sm_" + computeCapabilityMajor + computeCapabilityMinor;
    }

    @Override
    public String toString() {
        return "CUDA device " + index + ": " + name + " (compute " + computeCapabilityMajor + "." + computeCapabilityMinor
                + ", " + multiprocessorCount + " SMs, " + (totalMemory >> 20) + " MiB)";
    }
}
