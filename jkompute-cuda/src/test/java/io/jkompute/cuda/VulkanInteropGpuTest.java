package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.lwjgl.vulkan.VK10.*;
import static org.lwjgl.vulkan.VK11.VK_API_VERSION_1_1;
import static org.lwjgl.vulkan.VK11.VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
import static org.lwjgl.vulkan.VK11.vkGetPhysicalDeviceProperties2;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.KHRExternalMemoryFd;
import org.lwjgl.vulkan.VkApplicationInfo;
import org.lwjgl.vulkan.VkDevice;
import org.lwjgl.vulkan.VkDeviceCreateInfo;
import org.lwjgl.vulkan.VkDeviceQueueCreateInfo;
import org.lwjgl.vulkan.VkExportMemoryAllocateInfo;
import org.lwjgl.vulkan.VkInstance;
import org.lwjgl.vulkan.VkInstanceCreateInfo;
import org.lwjgl.vulkan.VkMemoryAllocateInfo;
import org.lwjgl.vulkan.VkMemoryGetFdInfoKHR;
import org.lwjgl.vulkan.VkPhysicalDevice;
import org.lwjgl.vulkan.VkPhysicalDeviceIDProperties;
import org.lwjgl.vulkan.VkPhysicalDeviceMemoryProperties;
import org.lwjgl.vulkan.VkPhysicalDeviceProperties2;

/**
 * Vulkan memory exported as an opaque fd and imported into CUDA: the same bytes seen by both APIs, in both
 * directions. Uses plain LWJGL Vulkan (host-visible memory so the test can read and write it without a queue); the
 * core's exportable tensors feed {@link ImportedMemory} the same way.
 */
@Tag("gpu")
class VulkanInteropGpuTest {
    private static final long SIZE = 1 << 20;

    @Test
    void cudaAndVulkanShareOneAllocation() {
        GpuTestSupport.requireCuda();
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkApplicationInfo app = VkApplicationInfo.calloc(stack).sType$Default().apiVersion(VK_API_VERSION_1_1);
            PointerBuffer pp = stack.mallocPointer(1);
            int rc = vkCreateInstance(VkInstanceCreateInfo.calloc(stack).sType$Default().pApplicationInfo(app), null, pp);
            assumeTrue(rc == VK_SUCCESS, "no Vulkan instance (" + rc + "): the interop test needs the Vulkan loader and NVIDIA ICD");
            VkInstance instance = new VkInstance(pp.get(0), VkInstanceCreateInfo.calloc(stack).sType$Default().pApplicationInfo(app));
            try {
                run(stack, instance);
            } finally {
                vkDestroyInstance(instance, null);
            }
        }
    }

    private void run(MemoryStack stack, VkInstance instance) {
        IntBuffer count = stack.mallocInt(1);
        vkEnumeratePhysicalDevices(instance, count, null);
        PointerBuffer handles = stack.mallocPointer(count.get(0));
        vkEnumeratePhysicalDevices(instance, count, handles);
        VkPhysicalDevice pd = null;
        int cudaDevice = -1;
        for (int i = 0; i < count.get(0) && pd == null; i++) {
            VkPhysicalDevice candidate = new VkPhysicalDevice(handles.get(i), instance);
            VkPhysicalDeviceIDProperties id = VkPhysicalDeviceIDProperties.calloc(stack).sType$Default();
            vkGetPhysicalDeviceProperties2(candidate, VkPhysicalDeviceProperties2.calloc(stack).sType$Default().pNext(id));
            ByteBuffer u = id.deviceUUID().order(ByteOrder.BIG_ENDIAN);
            UUID uuid = new UUID(u.getLong(0), u.getLong(8));
            for (int d = 0; d < Cuda.deviceCount(); d++) {
                if (Cuda.device(d).uuid().equals(uuid)) {
                    pd = candidate;
                    cudaDevice = Cuda.deviceWithUuid(uuid);
                }
            }
        }
        assumeTrue(pd != null, "no Vulkan device has the UUID of a CUDA device");
        VkDeviceQueueCreateInfo.Buffer q = VkDeviceQueueCreateInfo.calloc(1, stack).sType$Default()
                .queueFamilyIndex(0).pQueuePriorities(stack.floats(1f));
        VkDeviceCreateInfo dci = VkDeviceCreateInfo.calloc(stack).sType$Default().pQueueCreateInfos(q)
                .ppEnabledExtensionNames(stack.pointers(stack.UTF8(KHRExternalMemoryFd.VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)));
        PointerBuffer pp = stack.mallocPointer(1);
        assertEquals(VK_SUCCESS, vkCreateDevice(pd, dci, null, pp));
        VkDevice device = new VkDevice(pp.get(0), pd, dci);
        try {
            share(stack, pd, device, cudaDevice);
        } finally {
            vkDestroyDevice(device, null);
        }
    }

    private void share(MemoryStack stack, VkPhysicalDevice pd, VkDevice device, int cudaDevice) {
        VkPhysicalDeviceMemoryProperties mp = VkPhysicalDeviceMemoryProperties.calloc(stack);
        vkGetPhysicalDeviceMemoryProperties(pd, mp);
        int hostVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        int type = -1;
        for (int pass = 0; pass < 2 && type < 0; pass++) {
            int want = pass == 0 ? hostVisible | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT : hostVisible;
            for (int i = 0; i < mp.memoryTypeCount() && type < 0; i++) {
                if ((mp.memoryTypes(i).propertyFlags() & want) == want) type = i;
            }
        }
        assumeTrue(type >= 0, "no host-visible Vulkan memory type");
        System.out.println("interop: Vulkan memory type " + type + " flags 0x" + Integer.toHexString(mp.memoryTypes(type).propertyFlags())
                + ", CUDA device " + cudaDevice);
        VkExportMemoryAllocateInfo export = VkExportMemoryAllocateInfo.calloc(stack).sType$Default()
                .handleTypes(VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
        LongBuffer lp = stack.mallocLong(1);
        assertEquals(VK_SUCCESS, vkAllocateMemory(device, VkMemoryAllocateInfo.calloc(stack).sType$Default().pNext(export)
                .allocationSize(SIZE).memoryTypeIndex(type), null, lp));
        long memory = lp.get(0);
        try {
            PointerBuffer mapped = stack.mallocPointer(1);
            assertEquals(VK_SUCCESS, vkMapMemory(device, memory, 0, SIZE, 0, mapped));
            MemorySegment host = MemorySegment.ofAddress(mapped.get(0)).reinterpret(SIZE);
            int n = 16384;
            for (int i = 0; i < n; i++) host.setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 0.5f);
            for (int i = 0; i < 16; i++) host.setAtIndex(ValueLayout.JAVA_INT, (512 << 10) / 4 + i, 1000 + i);

            IntBuffer fd = stack.mallocInt(1);
            assertEquals(VK_SUCCESS, KHRExternalMemoryFd.vkGetMemoryFdKHR(device, VkMemoryGetFdInfoKHR.calloc(stack)
                    .sType$Default().memory(memory).handleType(VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT), fd));

            Cuda.setDevice(cudaDevice);
            try (ImportedMemory ext = ImportedMemory.importOpaqueFd(fd.get(0), SIZE, false);
                 CudaModule kernels = GpuTestSupport.testKernels()) {
                GpuArray floats = ext.map(0, DType.FLOAT32, n);
                GpuArray ints = ext.map(512 << 10, DType.INT32, 4, 4);
                // Vulkan wrote, CUDA reads
                float[] want = new float[n];
                for (int i = 0; i < n; i++) want[i] = i * 0.5f;
                assertArrayEquals(want, floats.toFloatArray());
                int[] wantInts = new int[16];
                for (int i = 0; i < 16; i++) wantInts[i] = 1000 + i;
                assertArrayEquals(wantInts, ints.toIntArray());
                // CUDA writes (a kernel and a fill through a view), Vulkan reads
                kernels.kernel("saxpy").launch(Dim3.blocksFor(n, 256), Dim3.of(256), n, 3f, floats, floats);
                ints.slice(Slice.all(), Slice.at(0)).fill(-5L);
                Cuda.synchronize();
                for (int i = 0; i < n; i++) {
                    assertEquals(Math.fma(3f, i * 0.5f, i * 0.5f), host.getAtIndex(ValueLayout.JAVA_FLOAT, i), "float " + i);
                }
                for (int i = 0; i < 16; i++) {
                    assertEquals(i % 4 == 0 ? -5 : 1000 + i, host.getAtIndex(ValueLayout.JAVA_INT, (512 << 10) / 4 + i), "int " + i);
                }
            }
            vkUnmapMemory(device, memory);
        } finally {
            vkFreeMemory(device, memory, null);
        }
    }
}
