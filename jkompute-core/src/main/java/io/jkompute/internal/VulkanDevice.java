package io.jkompute.internal;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.util.vma.Vma.*;
import static org.lwjgl.vulkan.VK10.*;

import io.jkompute.DeviceProperties;
import io.jkompute.JkomputeException;
import io.jkompute.Logging;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.util.vma.VmaAllocatorCreateInfo;
import org.lwjgl.util.vma.VmaVulkanFunctions;
import org.lwjgl.vulkan.*;

/**
 * A logical device with its queues, the VMA allocator, one pipeline cache and the staging pool.
 * Every optional compute feature the device has (float64, int64, int16, float16, int8, 8/16-bit storage) is enabled,
 * so shaders that use them just work; timeline semaphores are required.
 */
public final class VulkanDevice implements AutoCloseable {
    private static final Logging.Log LOG = Logging.logger(VulkanDevice.class);

    private final VulkanInstance instance;
    private final VkPhysicalDevice physical;
    private final DeviceProperties properties;
    private final VkDevice device;
    private final List<Queue> queues;
    private final int[] distinctFamilies;
    private final long allocator;
    private final long pipelineCache;
    private final StagingPool staging;
    private final Set<String> enabledExtensions;
    private final boolean externalMemoryFd;
    private final boolean robustBufferAccess;
    private boolean closed;

    /** One queue: its family, its handle, and the lock that serialises submits (Vulkan requires it). */
    public record Queue(int family, VkQueue handle, int timestampValidBits) {}

    public VulkanDevice(VulkanInstance instance, int index, int[] familyIndices, List<String> extensions) {
        this.instance = instance;
        this.physical = instance.physicalDevice(index);
        this.properties = VulkanInstance.describe(index, physical);
        DeviceProperties.Features feat = properties.features();
        if (!feat.timelineSemaphores()) {
            throw new JkomputeException("device " + properties + " lacks timeline semaphores (Vulkan 1.2), which jkompute needs");
        }
        int[] families = familyIndices == null || familyIndices.length == 0
                ? new int[] {defaultComputeFamily(properties)} : familyIndices.clone();
        Map<Integer, Integer> countPerFamily = new LinkedHashMap<>();
        for (int f : families) {
            if (f < 0 || f >= properties.queueFamilies().size()) {
                throw new IllegalArgumentException("queue family " + f + " does not exist: " + properties.name() + " has "
                        + properties.queueFamilies().size() + " queue families (0-" + (properties.queueFamilies().size() - 1) + ")");
            }
            DeviceProperties.QueueFamily qf = properties.queueFamilies().get(f);
            if (!qf.compute()) {
                throw new IllegalArgumentException("queue family " + f + " of " + properties.name() + " does not support compute");
            }
            int n = countPerFamily.merge(f, 1, Integer::sum);
            if (n > qf.queueCount()) {
                throw new IllegalArgumentException("queue family " + f + " has " + qf.queueCount() + " queue(s); "
                        + n + " were asked for");
            }
        }
        distinctFamilies = countPerFamily.keySet().stream().mapToInt(Integer::intValue).toArray();
        Set<String> available = availableExtensions();
        enabledExtensions = checkExtensions(extensions, available);
        // exporting memory to CUDA needs it; enabling it costs nothing where it exists
        externalMemoryFd = available.contains(KHRExternalMemoryFd.VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        if (externalMemoryFd) {
            enabledExtensions.add(KHRExternalMemoryFd.VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        }
        // Robust buffer access: a shader's write past the end of its tensor (more invocations than elements) is
        // dropped instead of landing in the neighbouring allocation; robustBufferAccess2 also makes such reads return
        // zero. On by default where offered; -Djkompute.robustBufferAccess=false turns it off for the last percent.
        boolean robust = !"false".equals(System.getProperty("jkompute.robustBufferAccess"));
        boolean robust1 = false;
        boolean robust2 = false;
        if (robust) {
            try (MemoryStack stack = stackPush()) {
                VkPhysicalDeviceRobustness2FeaturesEXT r2 = VkPhysicalDeviceRobustness2FeaturesEXT.calloc(stack)
                        .sType$Default();
                boolean has2 = available.contains(EXTRobustness2.VK_EXT_ROBUSTNESS_2_EXTENSION_NAME);
                VkPhysicalDeviceFeatures2 q = VkPhysicalDeviceFeatures2.calloc(stack).sType$Default();
                if (has2) {
                    q.pNext(r2);
                }
                VK11.vkGetPhysicalDeviceFeatures2(physical, q);
                robust1 = q.features().robustBufferAccess();
                robust2 = robust1 && has2 && r2.robustBufferAccess2();
            }
            if (robust2) {
                enabledExtensions.add(EXTRobustness2.VK_EXT_ROBUSTNESS_2_EXTENSION_NAME);
            }
        }
        robustBufferAccess = robust1;

        try (MemoryStack stack = stackPush()) {
            VkDeviceQueueCreateInfo.Buffer qci = VkDeviceQueueCreateInfo.calloc(countPerFamily.size(), stack);
            int i = 0;
            for (Map.Entry<Integer, Integer> e : countPerFamily.entrySet()) {
                float[] prio = new float[e.getValue()];
                java.util.Arrays.fill(prio, 1.0f);
                qci.get(i++).sType$Default().queueFamilyIndex(e.getKey()).pQueuePriorities(stack.floats(prio));
            }
            VkPhysicalDeviceVulkan11Features f11 = VkPhysicalDeviceVulkan11Features.calloc(stack).sType$Default()
                    .storageBuffer16BitAccess(feat.storageBuffer16Bit());
            VkPhysicalDeviceVulkan12Features f12 = VkPhysicalDeviceVulkan12Features.calloc(stack).sType$Default()
                    .timelineSemaphore(true).shaderFloat16(feat.float16()).shaderInt8(feat.int8())
                    .storageBuffer8BitAccess(feat.storageBuffer8Bit()).bufferDeviceAddress(feat.bufferDeviceAddress());
            VkPhysicalDeviceFeatures2 f2 = VkPhysicalDeviceFeatures2.calloc(stack).sType$Default().pNext(f11).pNext(f12);
            if (robust2) {
                f2.pNext(VkPhysicalDeviceRobustness2FeaturesEXT.calloc(stack).sType$Default().robustBufferAccess2(true));
            }
            f2.features().shaderFloat64(feat.float64()).shaderInt64(feat.int64()).shaderInt16(feat.int16())
                    .robustBufferAccess(robust1);
            PointerBuffer ext = null;
            if (!enabledExtensions.isEmpty()) {
                ext = stack.mallocPointer(enabledExtensions.size());
                for (String x : enabledExtensions) {
                    ext.put(stack.UTF8(x));
                }
                ext.flip();
            }
            // the raw address: LWJGL's typed pNext(f2) would prepend and cut f2's own chain (the 1.1 and 1.2 features)
            VkDeviceCreateInfo dci = VkDeviceCreateInfo.calloc(stack).sType$Default().pNext(f2.address())
                    .pQueueCreateInfos(qci).ppEnabledExtensionNames(ext);
            PointerBuffer p = stack.mallocPointer(1);
            int r = vkCreateDevice(physical, dci, null, p);
            if (r != VK_SUCCESS) {
                throw VulkanInstance.deviceCreationFailed(r);
            }
            device = new VkDevice(p.get(0), physical, dci, VK12.VK_API_VERSION_1_2);
            VulkanInstance.deviceCreated();

            List<Queue> qs = new ArrayList<>();
            Map<Integer, Integer> used = new LinkedHashMap<>();
            for (int f : families) {
                int qi = used.merge(f, 1, Integer::sum) - 1;
                vkGetDeviceQueue(device, f, qi, p);
                qs.add(new Queue(f, new VkQueue(p.get(0), device), properties.queueFamilies().get(f).timestampValidBits()));
            }
            queues = List.copyOf(qs);

            long vma = 0;
            try {
                VmaVulkanFunctions fns = VmaVulkanFunctions.calloc(stack).set(instance.handle(), device);
                VmaAllocatorCreateInfo aci = VmaAllocatorCreateInfo.calloc(stack).physicalDevice(physical).device(device)
                        .instance(instance.handle()).pVulkanFunctions(fns).vulkanApiVersion(VK12.VK_API_VERSION_1_2)
                        .flags(feat.bufferDeviceAddress() ? VMA_ALLOCATOR_CREATE_BUFFER_DEVICE_ADDRESS_BIT : 0);
                check(vmaCreateAllocator(aci, p), "vmaCreateAllocator");
                vma = p.get(0);
                pipelineCache = createPipelineCache(device, properties);
            } catch (RuntimeException | Error e) {
                // a device left alive crashes the NVIDIA driver at JVM exit: undo what was made
                if (vma != 0) vmaDestroyAllocator(vma);
                destroyDevice();
                throw e;
            }
            allocator = vma;
        }
        try {
            staging = new StagingPool(this);
        } catch (RuntimeException | Error e) {
            vkDestroyPipelineCache(device, pipelineCache, null);
            vmaDestroyAllocator(allocator);
            destroyDevice();
            throw e;
        }
        LOG.debug("device {} ({}), {} queue(s) on famil{} {}", properties.name(), properties.type(), queues.size(),
                distinctFamilies.length == 1 ? "y" : "ies", java.util.Arrays.toString(families));
    }

    /** The pipeline cache, seeded from disk; the saved data can exceed LWJGL's 64 KiB stack, so it goes to the heap. */
    private static long createPipelineCache(VkDevice device, DeviceProperties properties) {
        byte[] saved = PipelineCacheFile.load(properties);
        java.nio.ByteBuffer initial = saved == null ? null : org.lwjgl.system.MemoryUtil.memAlloc(saved.length).put(0, saved);
        try (MemoryStack stack = stackPush()) {
            // the driver checks the header (vendor, device, UUID) and ignores data that is not its own
            VkPipelineCacheCreateInfo pcci = VkPipelineCacheCreateInfo.calloc(stack).sType$Default().pInitialData(initial);
            LongBuffer lp = stack.mallocLong(1);
            check(vkCreatePipelineCache(device, pcci, null, lp), "vkCreatePipelineCache");
            return lp.get(0);
        } finally {
            org.lwjgl.system.MemoryUtil.memFree(initial);
        }
    }

    /**
     * A compute-only family when the device has one, else the first family with compute. On NVIDIA the graphics+compute
     * family 0 answered a submit + fence round trip in 50+ µs where the compute-only family answered in 14 µs (H100,
     * BENCHMARKS.md "queue family"); lavapipe has a single family, so nothing changes there.
     */
    public static int defaultComputeFamily(DeviceProperties p) {
        int first = -1;
        for (DeviceProperties.QueueFamily f : p.queueFamilies()) {
            if (f.compute() && !f.graphics()) {
                return f.index();
            }
            if (f.compute() && first < 0) {
                first = f.index();
            }
        }
        if (first < 0) {
            throw new JkomputeException("device " + p + " has no compute queue family");
        }
        return first;
    }

    private Set<String> checkExtensions(List<String> wanted, Set<String> available) {
        Set<String> out = new java.util.LinkedHashSet<>();
        if (wanted == null || wanted.isEmpty()) {
            return out;
        }
        List<String> missing = wanted.stream().filter(x -> !available.contains(x)).toList();
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("device " + properties.name() + " does not support extension(s) " + missing);
        }
        out.addAll(wanted);
        return out;
    }

    private Set<String> availableExtensions() {
        Set<String> available = new HashSet<>();
        try (MemoryStack stack = stackPush()) {
            java.nio.IntBuffer n = stack.mallocInt(1);
            check(vkEnumerateDeviceExtensionProperties(physical, (String) null, n, null), "vkEnumerateDeviceExtensionProperties");
            try (VkExtensionProperties.Buffer props = VkExtensionProperties.malloc(n.get(0))) {
                check(vkEnumerateDeviceExtensionProperties(physical, (String) null, n, props), "vkEnumerateDeviceExtensionProperties");
                props.forEach(x -> available.add(x.extensionNameString()));
            }
        }
        return available;
    }

    /** Whether shaders can reach buffers by address (used by the device-to-device copy shader). */
    public boolean bufferDeviceAddress() {
        return properties.features().bufferDeviceAddress() && properties.features().int64();
    }

    /** Whether memory can be exported as an opaque POSIX file descriptor (for CUDA's cuImportExternalMemory). */
    public boolean robustBufferAccess() {
        return robustBufferAccess;
    }

    /** Whether memory can be exported as an opaque file descriptor. */
    public boolean canExportMemory() {
        return externalMemoryFd;
    }

    public VkDevice handle() {
        return device;
    }

    public VkPhysicalDevice physical() {
        return physical;
    }

    public DeviceProperties properties() {
        return properties;
    }

    public List<Queue> queues() {
        return queues;
    }

    public long allocator() {
        return allocator;
    }

    public long pipelineCache() {
        return pipelineCache;
    }

    public StagingPool staging() {
        return staging;
    }

    /** Buffers shared by queues of different families use concurrent sharing, so no ownership transfers are needed. */
    public void sharing(VkBufferCreateInfo bci, MemoryStack stack) {
        if (distinctFamilies.length > 1) {
            bci.sharingMode(VK_SHARING_MODE_CONCURRENT).pQueueFamilyIndices(stack.ints(distinctFamilies));
        } else {
            bci.sharingMode(VK_SHARING_MODE_EXCLUSIVE);
        }
    }

    public void sharing(VkImageCreateInfo ici, MemoryStack stack) {
        if (distinctFamilies.length > 1) {
            ici.sharingMode(VK_SHARING_MODE_CONCURRENT).pQueueFamilyIndices(stack.ints(distinctFamilies));
        } else {
            ici.sharingMode(VK_SHARING_MODE_EXCLUSIVE);
        }
    }

    /**
     * Waits until the device is idle. vkDeviceWaitIdle requires every queue of the device to be externally
     * synchronized, and other threads may be submitting (a graph's network receiver uploads while its scheduler
     * dispatches): it takes each queue's lock, the one every vkQueueSubmit here holds, in list order.
     */
    public void waitIdle() {
        waitIdleHolding(0);
    }

    private void waitIdleHolding(int queue) {
        if (queue == queues.size()) {
            check(vkDeviceWaitIdle(device), "vkDeviceWaitIdle");
            return;
        }
        synchronized (queues.get(queue)) {
            waitIdleHolding(queue + 1);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        int r = vkDeviceWaitIdle(device);
        if (r != VK_SUCCESS) {
            LOG.warn("vkDeviceWaitIdle at close: {}", Vk.resultName(r));
        }
        staging.close();
        PipelineCacheFile.save(properties, device, pipelineCache);
        vkDestroyPipelineCache(device, pipelineCache, null);
        vmaDestroyAllocator(allocator);
        destroyDevice();
    }

    private void destroyDevice() {
        vkDestroyDevice(device, null);
        VulkanInstance.deviceDestroyed();
    }
}
