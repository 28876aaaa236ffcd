package io.jkompute.internal;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.EXTDebugUtils.*;
import static org.lwjgl.vulkan.VK10.*;
import static org.lwjgl.vulkan.VK11.*;
import static org.lwjgl.vulkan.VK12.*;

import io.jkompute.DeviceProperties;
import io.jkompute.JkomputeException;
import io.jkompute.Logging;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.*;

/**
 * The process's one Vulkan instance and its physical devices. Validation layers are switched on by
 * {@code JKOMPUTE_VALIDATION=1} or {@code -Djkompute.validation=true} (read once, when the instance is made); their
 * messages go to the logger.
 *
 * <p>One instance per process, because the NVIDIA driver (580, H100) refused the 31st {@code vkCreateInstance} of a
 * process with VK_ERROR_INCOMPATIBLE_DRIVER even when every earlier one had been destroyed. It is made on first use and
 * destroyed once, at JVM exit, after every Manager has closed ({@link #destroyShared()}). Instance and devices are made
 * and destroyed on one process-wide daemon thread ({@link #onOwner}): the same driver crashed the JVM when another
 * thread than the creating one destroyed them.
 */
public final class VulkanInstance {
    private static final Logging.Log LOG = Logging.logger(VulkanInstance.class);
    public static final String INSTALL_HINT =
            "install a Vulkan loader and driver, e.g. 'sudo apt-get install -y libvulkan1 mesa-vulkan-drivers'"
                    + " (Mesa's CPU driver lavapipe), or your GPU vendor's driver";
    private static final String VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation";
    private static final java.util.concurrent.atomic.AtomicLong VALIDATION_ERRORS = new java.util.concurrent.atomic.AtomicLong();

    private final VkInstance instance;
    private final long messenger;
    private final VkDebugUtilsMessengerCallbackEXT callback;
    private final List<VkPhysicalDevice> physicalDevices;
    private boolean closed;

    private static final java.util.concurrent.ExecutorService OWNER = java.util.concurrent.Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().daemon().name("jkompute-vulkan-owner").unstarted(r));
    private static volatile Thread ownerThread;
    // the fields below are touched only on the owner thread
    private static VulkanInstance shared;
    private static boolean shutDown;
    private static int instancesCreated;
    private static int devicesCreated;
    private static int devicesOpen;

    /** The process's instance, made on first use. */
    public static VulkanInstance shared() {
        return onOwner(() -> {
            if (shutDown) {
                throw new IllegalStateException("the JVM is shutting down: the Vulkan instance has been destroyed");
            }
            if (shared == null) {
                shared = new VulkanInstance();
            }
            return shared;
        });
    }

    /** Destroys the process's instance; called once by the shutdown hook after every Manager has closed. */
    public static void destroyShared() {
        onOwner(() -> {
            shutDown = true;
            if (shared != null) {
                if (devicesOpen > 0) {
                    LOG.warn("destroying the Vulkan instance with {} device(s) still open", devicesOpen);
                }
                shared.destroy();
                shared = null;
            }
            return null;
        });
    }

    /**
     * Runs {@code work} on the process-wide Vulkan owner thread and returns its result; runs it directly when called
     * on that thread. Exceptions thrown by {@code work} are rethrown as they are.
     */
    public static <T> T onOwner(java.util.concurrent.Callable<T> work) {
        if (Thread.currentThread() == ownerThread) {
            try {
                return work.call();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new JkomputeException("Vulkan owner thread failed", e);
            }
        }
        try {
            return OWNER.submit(() -> {
                ownerThread = Thread.currentThread();
                return work.call();
            }).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JkomputeException("interrupted while the Vulkan owner thread worked", e);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new JkomputeException("Vulkan owner thread failed", e.getCause());
        }
    }

    /** Counts a device made on the owner thread (for the messages of later failures). */
    static void deviceCreated() {
        devicesCreated++;
        devicesOpen++;
    }

    static void deviceDestroyed() {
        devicesOpen--;
    }

    /** The error for a failed vkCreateDevice: after earlier successes it says how many, so nobody reinstalls drivers. */
    static RuntimeException deviceCreationFailed(int result) {
        return creationFailed("vkCreateDevice", result, devicesCreated, devicesOpen);
    }

    /**
     * The error for a failed vkCreateInstance or vkCreateDevice. Only the first-ever failure for want of a driver
     * suggests installing one: once the call has worked in this process, the driver is there.
     */
    public static RuntimeException creationFailed(String call, int result, int succeededBefore, int stillOpen) {
        if (succeededBefore == 0 && result == VK_ERROR_INCOMPATIBLE_DRIVER) {
            return new JkomputeException("no Vulkan driver found (" + call + ": VK_ERROR_INCOMPATIBLE_DRIVER): " + INSTALL_HINT);
        }
        if (succeededBefore == 0) {
            return new io.jkompute.VulkanException(call, result, Vk.resultName(result));
        }
        return new io.jkompute.VulkanException(call, result, Vk.resultName(result), "after " + succeededBefore
                + " successful call(s) in this process (" + stillOpen + " still open): the driver is installed"
                + " but refused another one");
    }

    private VulkanInstance() {
        loadLoader();
        boolean validation = validationRequested();
        boolean debugUtils;
        try (MemoryStack stack = stackPush()) {
            Set<String> layers = availableLayers(stack);
            Set<String> extensions = availableInstanceExtensions(stack);
            boolean useValidation = validation && layers.contains(VALIDATION_LAYER);
            if (validation && !useValidation) {
                LOG.warn("validation requested but {} is not installed (apt-get install vulkan-validationlayers)", VALIDATION_LAYER);
            }
            debugUtils = useValidation && extensions.contains(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
            VkApplicationInfo app = VkApplicationInfo.calloc(stack).sType$Default()
                    .pApplicationName(stack.UTF8("jkompute")).applicationVersion(VK_MAKE_VERSION(0, 1, 0))
                    .pEngineName(stack.UTF8("jkompute")).engineVersion(VK_MAKE_VERSION(0, 1, 0))
                    .apiVersion(VK_API_VERSION_1_2);
            PointerBuffer layerNames = null;
            if (useValidation) {
                layerNames = stack.pointers(stack.UTF8(VALIDATION_LAYER));
            }
            PointerBuffer extNames = debugUtils ? stack.pointers(stack.UTF8(VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) : null;
            VkInstanceCreateInfo ci = VkInstanceCreateInfo.calloc(stack).sType$Default()
                    .pApplicationInfo(app).ppEnabledLayerNames(layerNames).ppEnabledExtensionNames(extNames);
            if (useValidation && "sync".equalsIgnoreCase(validationSetting())) {
                // synchronization validation checks every barrier jkompute records (JKOMPUTE_VALIDATION=sync)
                ci.pNext(VkValidationFeaturesEXT.calloc(stack).sType$Default().pEnabledValidationFeatures(
                        stack.ints(EXTValidationFeatures.VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT)).address());
            }
            PointerBuffer p = stack.mallocPointer(1);
            int r = vkCreateInstance(ci, null, p);
            if (r != VK_SUCCESS) {
                throw creationFailed("vkCreateInstance", r, instancesCreated, 0);
            }
            instancesCreated++;
            instance = new VkInstance(p.get(0), ci);
        }
        VkDebugUtilsMessengerCallbackEXT cb = null;
        long made = VK_NULL_HANDLE;
        try (MemoryStack stack = stackPush()) {
            if (debugUtils) {
                cb = VkDebugUtilsMessengerCallbackEXT.create((severity, types, data, user) -> {
                    String msg = VkDebugUtilsMessengerCallbackDataEXT.create(data).pMessageString();
                    if ((severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0) {
                        VALIDATION_ERRORS.incrementAndGet();
                        LOG.error("validation: {}", msg);
                    } else if ((severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) != 0) {
                        LOG.warn("validation: {}", msg);
                    } else {
                        LOG.debug("validation: {}", msg);
                    }
                    return VK_FALSE;
                });
                VkDebugUtilsMessengerCreateInfoEXT mci = VkDebugUtilsMessengerCreateInfoEXT.calloc(stack).sType$Default()
                        .messageSeverity(VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT
                                | VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT)
                        .messageType(VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT
                                | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)
                        .pfnUserCallback(cb);
                java.nio.LongBuffer lp = stack.mallocLong(1);
                check(vkCreateDebugUtilsMessengerEXT(instance, mci, null, lp), "vkCreateDebugUtilsMessengerEXT");
                made = lp.get(0);
                LOG.info("Vulkan validation layers enabled");
            }
            java.nio.IntBuffer n = stack.mallocInt(1);
            check(vkEnumeratePhysicalDevices(instance, n, null), "vkEnumeratePhysicalDevices");
            PointerBuffer devs = stack.mallocPointer(n.get(0));
            check(vkEnumeratePhysicalDevices(instance, n, devs), "vkEnumeratePhysicalDevices");
            List<VkPhysicalDevice> list = new ArrayList<>();
            for (int i = 0; i < n.get(0); i++) {
                list.add(new VkPhysicalDevice(devs.get(i), instance));
            }
            physicalDevices = List.copyOf(list);
        } catch (RuntimeException | Error e) {
            // an instance left alive is what this class exists to prevent
            if (made != VK_NULL_HANDLE) vkDestroyDebugUtilsMessengerEXT(instance, made, null);
            if (cb != null) cb.free();
            vkDestroyInstance(instance, null);
            throw e;
        }
        callback = cb;
        messenger = made;
    }

    /** Validation errors reported in this JVM so far (0 unless validation is on); tests assert it stays 0. */
    public static long validationErrors() {
        return VALIDATION_ERRORS.get();
    }

    private static String validationSetting() {
        String p = System.getProperty("jkompute.validation");
        return p != null ? p : System.getenv("JKOMPUTE_VALIDATION");
    }

    private static boolean validationRequested() {
        String v = validationSetting();
        return v != null && (v.equals("1") || v.equalsIgnoreCase("true") || v.equalsIgnoreCase("yes")
                || v.equalsIgnoreCase("sync"));
    }

    /** Loads libvulkan.so.1 once, turning LWJGL's link failure into an error that says what to install. */
    private static void loadLoader() {
        try {
            org.lwjgl.vulkan.VK.getFunctionProvider();
        } catch (Throwable first) {
            try {
                org.lwjgl.vulkan.VK.create();
            } catch (Throwable t) {
                throw new JkomputeException("the Vulkan loader (libvulkan.so.1) could not be loaded: " + t.getMessage()
                        + "; " + INSTALL_HINT, t);
            }
        }
    }

    private static Set<String> availableLayers(MemoryStack stack) {
        java.nio.IntBuffer n = stack.mallocInt(1);
        check(vkEnumerateInstanceLayerProperties(n, null), "vkEnumerateInstanceLayerProperties");
        Set<String> out = new HashSet<>();
        try (VkLayerProperties.Buffer props = VkLayerProperties.malloc(n.get(0))) {
            check(vkEnumerateInstanceLayerProperties(n, props), "vkEnumerateInstanceLayerProperties");
            props.forEach(l -> out.add(l.layerNameString()));
        }
        return out;
    }

    private static Set<String> availableInstanceExtensions(MemoryStack stack) {
        java.nio.IntBuffer n = stack.mallocInt(1);
        check(vkEnumerateInstanceExtensionProperties((String) null, n, null), "vkEnumerateInstanceExtensionProperties");
        Set<String> out = new HashSet<>();
        try (VkExtensionProperties.Buffer props = VkExtensionProperties.malloc(n.get(0))) {
            check(vkEnumerateInstanceExtensionProperties((String) null, n, props), "vkEnumerateInstanceExtensionProperties");
            props.forEach(x -> out.add(x.extensionNameString()));
        }
        return out;
    }

    public VkInstance handle() {
        return instance;
    }

    public List<VkPhysicalDevice> physicalDevices() {
        return physicalDevices;
    }

    /** The physical device at {@code index}, with an error listing what exists when there is none. */
    public VkPhysicalDevice physicalDevice(int index) {
        if (physicalDevices.isEmpty()) {
            throw new JkomputeException("no Vulkan device found: " + INSTALL_HINT);
        }
        if (index < 0 || index >= physicalDevices.size()) {
            StringBuilder sb = new StringBuilder("device index " + index + " is out of range: there "
                    + (physicalDevices.size() == 1 ? "is 1 Vulkan device" : "are " + physicalDevices.size() + " Vulkan devices"));
            for (int i = 0; i < physicalDevices.size(); i++) {
                sb.append(i == 0 ? ": " : ", ").append('#').append(i).append(' ').append(describe(i).name());
            }
            throw new IllegalArgumentException(sb.toString());
        }
        return physicalDevices.get(index);
    }

    /** Properties, limits and features of device {@code index}. */
    public DeviceProperties describe(int index) {
        return describe(index, physicalDevices.get(index));
    }

    public static DeviceProperties describe(int index, VkPhysicalDevice pd) {
        try (MemoryStack stack = stackPush()) {
            VkPhysicalDeviceProperties props = VkPhysicalDeviceProperties.calloc(stack);
            vkGetPhysicalDeviceProperties(pd, props);
            int api = props.apiVersion();
            boolean v12 = VK_API_VERSION_MAJOR(api) > 1 || VK_API_VERSION_MINOR(api) >= 2;
            VkPhysicalDeviceSubgroupProperties subgroup = VkPhysicalDeviceSubgroupProperties.calloc(stack).sType$Default();
            VkPhysicalDeviceIDProperties ids = VkPhysicalDeviceIDProperties.calloc(stack).sType$Default();
            VkPhysicalDeviceDriverProperties driver = VkPhysicalDeviceDriverProperties.calloc(stack).sType$Default();
            VkPhysicalDeviceProperties2 props2 = VkPhysicalDeviceProperties2.calloc(stack).sType$Default()
                    .pNext(subgroup).pNext(ids);
            if (v12) {
                props2.pNext(driver);
            }
            vkGetPhysicalDeviceProperties2(pd, props2);

            VkPhysicalDeviceVulkan11Features f11 = VkPhysicalDeviceVulkan11Features.calloc(stack).sType$Default();
            VkPhysicalDeviceVulkan12Features f12 = VkPhysicalDeviceVulkan12Features.calloc(stack).sType$Default();
            VkPhysicalDeviceFeatures2 f2 = VkPhysicalDeviceFeatures2.calloc(stack).sType$Default();
            if (v12) {
                f2.pNext(f11).pNext(f12);
            }
            vkGetPhysicalDeviceFeatures2(pd, f2);
            VkPhysicalDeviceFeatures f = f2.features();

            VkPhysicalDeviceMemoryProperties mem = VkPhysicalDeviceMemoryProperties.calloc(stack);
            vkGetPhysicalDeviceMemoryProperties(pd, mem);
            long local = 0;
            for (int i = 0; i < mem.memoryHeapCount(); i++) {
                VkMemoryHeap h = mem.memoryHeaps(i);
                if ((h.flags() & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0) {
                    local = Math.max(local, h.size());
                }
            }

            java.nio.IntBuffer n = stack.mallocInt(1);
            vkGetPhysicalDeviceQueueFamilyProperties(pd, n, null);
            VkQueueFamilyProperties.Buffer qf = VkQueueFamilyProperties.calloc(n.get(0), stack);
            vkGetPhysicalDeviceQueueFamilyProperties(pd, n, qf);
            List<DeviceProperties.QueueFamily> families = new ArrayList<>();
            boolean anyTimestampQueue = false;
            for (int i = 0; i < qf.capacity(); i++) {
                VkQueueFamilyProperties q = qf.get(i);
                int fl = q.queueFlags();
                families.add(new DeviceProperties.QueueFamily(i, q.queueCount(), (fl & VK_QUEUE_COMPUTE_BIT) != 0,
                        (fl & VK_QUEUE_GRAPHICS_BIT) != 0, (fl & VK_QUEUE_TRANSFER_BIT) != 0, q.timestampValidBits()));
                anyTimestampQueue |= (fl & VK_QUEUE_COMPUTE_BIT) != 0 && q.timestampValidBits() > 0;
            }

            VkPhysicalDeviceLimits lim = props.limits();
            DeviceProperties.Limits limits = new DeviceProperties.Limits(
                    new int[] {lim.maxComputeWorkGroupCount(0), lim.maxComputeWorkGroupCount(1), lim.maxComputeWorkGroupCount(2)},
                    new int[] {lim.maxComputeWorkGroupSize(0), lim.maxComputeWorkGroupSize(1), lim.maxComputeWorkGroupSize(2)},
                    lim.maxComputeWorkGroupInvocations(), lim.maxComputeSharedMemorySize(), lim.maxPushConstantsSize(),
                    Integer.toUnsignedLong(lim.maxStorageBufferRange()), lim.maxBoundDescriptorSets(), lim.timestampPeriod(),
                    subgroup.subgroupSize());
            DeviceProperties.Features features = new DeviceProperties.Features(
                    f.shaderFloat64(), f.shaderInt64(), f.shaderInt16(),
                    v12 && f12.shaderFloat16(), v12 && f12.shaderInt8(),
                    v12 && f12.storageBuffer8BitAccess(), v12 && f11.storageBuffer16BitAccess(),
                    lim.timestampComputeAndGraphics() && anyTimestampQueue, v12 && f12.timelineSemaphore(),
                    v12 && f12.bufferDeviceAddress());
            byte[] uuid = new byte[VK_UUID_SIZE];
            for (int i = 0; i < VK_UUID_SIZE; i++) {
                uuid[i] = ids.deviceUUID(i);
            }
            String driverVersion = v12 && !driver.driverInfoString().isBlank()
                    ? driver.driverNameString() + " " + driver.driverInfoString()
                    : decodeDriverVersion(props.vendorID(), props.driverVersion());
            return new DeviceProperties(index, props.deviceNameString(), deviceType(props.deviceType()),
                    VK_API_VERSION_MAJOR(api) + "." + VK_API_VERSION_MINOR(api) + "." + VK_API_VERSION_PATCH(api),
                    driverVersion, props.vendorID(), uuid, local, limits, features, List.copyOf(families));
        }
    }

    private static String decodeDriverVersion(int vendor, int v) {
        if (vendor == 0x10DE) {
            return ((v >>> 22) & 0x3ff) + "." + ((v >>> 14) & 0xff) + "." + ((v >>> 6) & 0xff);
        }
        return VK_API_VERSION_MAJOR(v) + "." + VK_API_VERSION_MINOR(v) + "." + VK_API_VERSION_PATCH(v);
    }

    private static String deviceType(int t) {
        return switch (t) {
            case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU -> "DISCRETE_GPU";
            case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU -> "INTEGRATED_GPU";
            case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU -> "VIRTUAL_GPU";
            case VK_PHYSICAL_DEVICE_TYPE_CPU -> "CPU";
            default -> "OTHER";
        };
    }

    private void destroy() {
        if (closed) {
            return;
        }
        closed = true;
        if (messenger != VK_NULL_HANDLE) {
            vkDestroyDebugUtilsMessengerEXT(instance, messenger, null);
            callback.free();
        }
        vkDestroyInstance(instance, null);
    }
}
