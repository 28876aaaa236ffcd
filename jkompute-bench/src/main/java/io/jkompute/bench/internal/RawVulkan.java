package io.jkompute.bench.internal;

import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.VK10.*;
import static org.lwjgl.vulkan.VK11.*;

import io.jkompute.JkomputeException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.system.MemoryUtil;
import org.lwjgl.vulkan.*;

/**
 * The baseline: the least Vulkan that does the same work as jkompute, written straight against LWJGL. One instance,
 * device 0, one queue of the family jkompute picks (compute-only first), plain {@code vkAllocateMemory} per
 * buffer, one reusable command buffer and fence, and a timestamp query pool. No library code in between.
 */
public final class RawVulkan implements AutoCloseable {
    private final VkInstance instance;
    private final VkPhysicalDevice physical;
    private final VkDevice device;
    private final VkQueue queue;
    private final int family;
    private final long pool;
    private final VkCommandBuffer cmd;
    private final long fence;
    private final long queryPool;
    private final int queryCapacity;
    private final float timestampPeriod;
    private final VkPhysicalDeviceMemoryProperties memProps;
    private final String name;
    private final boolean deviceAddress;
    private final List<AutoCloseable> owned = new ArrayList<>();
    private final PointerBuffer submitCmds;
    private final VkSubmitInfo submitInfo;
    private final LongBuffer fenceBuf;

    /** A buffer with its memory; {@link #mapped()} is set for host-visible ones. */
    public final class Buffer implements AutoCloseable {
        public final long handle;
        final long memory;
        public final long size;
        private final MemorySegment mapped;
        private boolean closed;

        Buffer(long handle, long memory, long size, MemorySegment mapped) {
            this.handle = handle;
            this.memory = memory;
            this.size = size;
            this.mapped = mapped;
        }

        /** The host view of a host-visible buffer. */
        public MemorySegment mapped() {
            if (mapped == null) {
                throw new IllegalStateException("device-local buffer has no host view");
            }
            return mapped;
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            vkDestroyBuffer(device, handle, null);
            vkFreeMemory(device, memory, null);
        }
    }

    /** A compute pipeline with one descriptor set of storage buffers. */
    public final class Pipeline implements AutoCloseable {
        final long setLayout;
        final long layout;
        final long pipeline;
        final long descPool;
        final long set;
        final int pushBytes;
        private boolean closed;

        Pipeline(byte[] spirv, int pushBytes, Buffer... buffers) {
            this.pushBytes = pushBytes;
            try (MemoryStack s = stackPush()) {
                LongBuffer lp = s.mallocLong(1);
                VkDescriptorSetLayoutBinding.Buffer b = VkDescriptorSetLayoutBinding.calloc(buffers.length, s);
                for (int i = 0; i < buffers.length; i++) {
                    b.get(i).binding(i).descriptorType(VK_DESCRIPTOR_TYPE_STORAGE_BUFFER).descriptorCount(1)
                            .stageFlags(VK_SHADER_STAGE_COMPUTE_BIT);
                }
                check(vkCreateDescriptorSetLayout(device, VkDescriptorSetLayoutCreateInfo.calloc(s).sType$Default().pBindings(b),
                        null, lp), "vkCreateDescriptorSetLayout");
                setLayout = lp.get(0);
                VkPushConstantRange.Buffer pcr = pushBytes == 0 ? null
                        : VkPushConstantRange.calloc(1, s).stageFlags(VK_SHADER_STAGE_COMPUTE_BIT).size(pushBytes);
                check(vkCreatePipelineLayout(device, VkPipelineLayoutCreateInfo.calloc(s).sType$Default()
                        .pSetLayouts(s.longs(setLayout)).pPushConstantRanges(pcr), null, lp), "vkCreatePipelineLayout");
                layout = lp.get(0);
                ByteBuffer code = s.malloc(spirv.length);
                code.put(spirv).flip();
                check(vkCreateShaderModule(device, VkShaderModuleCreateInfo.calloc(s).sType$Default().pCode(code), null, lp),
                        "vkCreateShaderModule");
                long module = lp.get(0);
                VkComputePipelineCreateInfo.Buffer pci = VkComputePipelineCreateInfo.calloc(1, s).sType$Default().layout(layout);
                pci.stage().sType$Default().stage(VK_SHADER_STAGE_COMPUTE_BIT).module(module).pName(s.UTF8("main"));
                check(vkCreateComputePipelines(device, VK_NULL_HANDLE, pci, null, lp), "vkCreateComputePipelines");
                pipeline = lp.get(0);
                vkDestroyShaderModule(device, module, null);
                VkDescriptorPoolSize.Buffer ps = VkDescriptorPoolSize.calloc(1, s).type(VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)
                        .descriptorCount(buffers.length);
                check(vkCreateDescriptorPool(device, VkDescriptorPoolCreateInfo.calloc(s).sType$Default().maxSets(1)
                        .pPoolSizes(ps), null, lp), "vkCreateDescriptorPool");
                descPool = lp.get(0);
                check(vkAllocateDescriptorSets(device, VkDescriptorSetAllocateInfo.calloc(s).sType$Default()
                        .descriptorPool(descPool).pSetLayouts(s.longs(setLayout)), lp), "vkAllocateDescriptorSets");
                set = lp.get(0);
                VkWriteDescriptorSet.Buffer w = VkWriteDescriptorSet.calloc(buffers.length, s);
                for (int i = 0; i < buffers.length; i++) {
                    VkDescriptorBufferInfo.Buffer bi = VkDescriptorBufferInfo.calloc(1, s).buffer(buffers[i].handle)
                            .offset(0).range(VK_WHOLE_SIZE);
                    w.get(i).sType$Default().dstSet(set).dstBinding(i).descriptorCount(1)
                            .descriptorType(VK_DESCRIPTOR_TYPE_STORAGE_BUFFER).pBufferInfo(bi);
                }
                vkUpdateDescriptorSets(device, w, null);
            }
        }

        /** Records barrier (as jkompute records before each dispatch) + bind + push + dispatch. */
        public void dispatch(VkCommandBuffer c, ByteBuffer push, int groups) {
            try (MemoryStack s = stackPush()) {
                VkMemoryBarrier.Buffer mb = VkMemoryBarrier.calloc(1, s).sType$Default()
                        .srcAccessMask(VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)
                        .dstAccessMask(VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
                vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, mb, null, null);
                vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
                vkCmdBindDescriptorSets(c, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, s.longs(set), null);
                if (pushBytes > 0) {
                    vkCmdPushConstants(c, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push);
                }
                vkCmdDispatch(c, groups, 1, 1);
            }
        }

        /**
         * Probe variants of {@link #dispatch}: {@code barrier} as a compute-to-compute memory barrier only (no transfer
         * stage), or none; binds only when {@code bind} (a chain that binds once and dispatches many times).
         */
        public void dispatchProbe(VkCommandBuffer c, ByteBuffer push, int groups, boolean barrier, boolean bind) {
            try (MemoryStack s = stackPush()) {
                if (barrier) {
                    VkMemoryBarrier.Buffer mb = VkMemoryBarrier.calloc(1, s).sType$Default()
                            .srcAccessMask(VK_ACCESS_SHADER_WRITE_BIT)
                            .dstAccessMask(VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
                    vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, mb,
                            null, null);
                }
                if (bind) {
                    vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
                    vkCmdBindDescriptorSets(c, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, s.longs(set), null);
                    if (pushBytes > 0) {
                        vkCmdPushConstants(c, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push);
                    }
                }
                vkCmdDispatch(c, groups, 1, 1);
            }
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            vkDestroyDescriptorPool(device, descPool, null);
            vkDestroyPipeline(device, pipeline, null);
            vkDestroyPipelineLayout(device, layout, null);
            vkDestroyDescriptorSetLayout(device, setLayout, null);
        }
    }

    public RawVulkan(int queryCapacity) {
        this(queryCapacity, -1, false);
    }

    /**
     * @param family        queue family to use, or -1 for the one jkompute picks (compute-only first)
     * @param deviceAddress enable the Vulkan 1.2 {@code bufferDeviceAddress} feature (as jkompute does where it
     *                      exists), so buffers can be made with device-address memory; throws if unsupported
     */
    public RawVulkan(int queryCapacity, int family, boolean deviceAddress) {
        this.queryCapacity = queryCapacity;
        this.deviceAddress = deviceAddress;
        try (MemoryStack s = stackPush()) {
            VkApplicationInfo app = VkApplicationInfo.calloc(s).sType$Default().pApplicationName(s.UTF8("raw-baseline"))
                    .apiVersion(deviceAddress ? VK_MAKE_API_VERSION(0, 1, 2, 0) : VK_MAKE_API_VERSION(0, 1, 1, 0));
            PointerBuffer pp = s.mallocPointer(1);
            check(vkCreateInstance(VkInstanceCreateInfo.calloc(s).sType$Default().pApplicationInfo(app), null, pp),
                    "vkCreateInstance");
            instance = new VkInstance(pp.get(0), VkInstanceCreateInfo.calloc(s).sType$Default().pApplicationInfo(app));
            IntBuffer n = s.mallocInt(1);
            check(vkEnumeratePhysicalDevices(instance, n, null), "vkEnumeratePhysicalDevices");
            if (n.get(0) == 0) {
                throw new JkomputeException("no Vulkan device");
            }
            PointerBuffer devs = s.mallocPointer(n.get(0));
            check(vkEnumeratePhysicalDevices(instance, n, devs), "vkEnumeratePhysicalDevices");
            physical = new VkPhysicalDevice(devs.get(0), instance);
            VkPhysicalDeviceProperties props = VkPhysicalDeviceProperties.calloc(s);
            vkGetPhysicalDeviceProperties(physical, props);
            name = props.deviceNameString();
            timestampPeriod = props.limits().timestampPeriod();
            vkGetPhysicalDeviceQueueFamilyProperties(physical, n, null);
            VkQueueFamilyProperties.Buffer qf = VkQueueFamilyProperties.calloc(n.get(0), s);
            vkGetPhysicalDeviceQueueFamilyProperties(physical, n, qf);
            int f = family;
            // the rule jkompute's default follows: a compute-only family first, else the first with compute
            for (int i = 0; i < qf.capacity() && f < 0; i++) {
                int flags = qf.get(i).queueFlags();
                if ((flags & VK_QUEUE_COMPUTE_BIT) != 0 && (flags & VK_QUEUE_GRAPHICS_BIT) == 0) f = i;
            }
            for (int i = 0; i < qf.capacity() && f < 0; i++) {
                if ((qf.get(i).queueFlags() & VK_QUEUE_COMPUTE_BIT) != 0) f = i;
            }
            if (f >= qf.capacity() || (qf.get(f).queueFlags() & VK_QUEUE_COMPUTE_BIT) == 0) {
                vkDestroyInstance(instance, null);
                throw new JkomputeException("queue family " + family + " of " + name + " has no compute queue");
            }
            this.family = f;
            VkDeviceQueueCreateInfo.Buffer qci = VkDeviceQueueCreateInfo.calloc(1, s);
            qci.get(0).sType$Default().queueFamilyIndex(this.family).pQueuePriorities(s.floats(1f));
            VkDeviceCreateInfo dci = VkDeviceCreateInfo.calloc(s).sType$Default().pQueueCreateInfos(qci);
            if (deviceAddress) {
                VkPhysicalDeviceBufferDeviceAddressFeatures bda = VkPhysicalDeviceBufferDeviceAddressFeatures.calloc(s).sType$Default();
                vkGetPhysicalDeviceFeatures2(physical, VkPhysicalDeviceFeatures2.calloc(s).sType$Default().pNext(bda));
                if (!bda.bufferDeviceAddress()) {
                    vkDestroyInstance(instance, null);
                    throw new JkomputeException(name + " lacks bufferDeviceAddress");
                }
                dci.pNext(VkPhysicalDeviceBufferDeviceAddressFeatures.calloc(s).sType$Default().bufferDeviceAddress(true));
            }
            check(vkCreateDevice(physical, dci, null, pp), "vkCreateDevice");
            device = new VkDevice(pp.get(0), physical, dci, deviceAddress ? VK_MAKE_API_VERSION(0, 1, 2, 0) : VK_MAKE_API_VERSION(0, 1, 1, 0));
            vkGetDeviceQueue(device, this.family, 0, pp);
            queue = new VkQueue(pp.get(0), device);
            memProps = VkPhysicalDeviceMemoryProperties.malloc();
            vkGetPhysicalDeviceMemoryProperties(physical, memProps);
            LongBuffer lp = s.mallocLong(1);
            check(vkCreateCommandPool(device, VkCommandPoolCreateInfo.calloc(s).sType$Default().queueFamilyIndex(this.family)
                    .flags(VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT), null, lp), "vkCreateCommandPool");
            pool = lp.get(0);
            check(vkAllocateCommandBuffers(device, VkCommandBufferAllocateInfo.calloc(s).sType$Default().commandPool(pool)
                    .level(VK_COMMAND_BUFFER_LEVEL_PRIMARY).commandBufferCount(1), pp), "vkAllocateCommandBuffers");
            cmd = new VkCommandBuffer(pp.get(0), device);
            check(vkCreateFence(device, VkFenceCreateInfo.calloc(s).sType$Default(), null, lp), "vkCreateFence");
            fence = lp.get(0);
            check(vkCreateQueryPool(device, VkQueryPoolCreateInfo.calloc(s).sType$Default().queryType(VK_QUERY_TYPE_TIMESTAMP)
                    .queryCount(queryCapacity), null, lp), "vkCreateQueryPool");
            queryPool = lp.get(0);
        }
        submitCmds = MemoryUtil.memAllocPointer(1).put(0, cmd);
        submitInfo = VkSubmitInfo.calloc().sType$Default().pCommandBuffers(submitCmds);
        fenceBuf = MemoryUtil.memAllocLong(1).put(0, fence);
    }

    public int family() {
        return family;
    }

    public String deviceName() {
        return name;
    }

    public float timestampPeriodNanos() {
        return timestampPeriod;
    }

    /** How a device-local buffer's memory is allocated, for the copy-path probe. */
    public enum Alloc {
        /** vkAllocateMemory with nothing chained. */
        PLAIN,
        /** VkMemoryDedicatedAllocateInfo naming the buffer (what VMA does for large buffers). */
        DEDICATED,
        /** VkMemoryAllocateFlagsInfo with DEVICE_ADDRESS (what VMA does for every allocation when jkompute enables bufferDeviceAddress). */
        DEVICE_ADDRESS
    }

    /** A device-local buffer, or a host-visible coherent one (preferring host-cached, not device-local) mapped. */
    public Buffer buffer(long bytes, boolean hostVisible) {
        return buffer(bytes, hostVisible, Alloc.PLAIN);
    }

    public Buffer buffer(long bytes, boolean hostVisible, Alloc alloc) {
        return buffer(bytes, hostVisible, alloc, -1);
    }

    /** Device-local memory types (indices) a storage/transfer buffer can live in, with their flags as text. */
    public java.util.Map<Integer, String> deviceLocalTypes() {
        java.util.Map<Integer, String> out = new java.util.LinkedHashMap<>();
        int bits = bufferTypeBits();
        for (int i = 0; i < memProps.memoryTypeCount(); i++) {
            int f = memProps.memoryTypes(i).propertyFlags();
            if ((bits & (1 << i)) != 0 && (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0) {
                out.put(i, "DEVICE_LOCAL" + ((f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0 ? "|HOST_VISIBLE" : "")
                        + ((f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0 ? "|HOST_COHERENT" : "")
                        + ((f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0 ? "|HOST_CACHED" : "")
                        + ", heap " + memProps.memoryTypes(i).heapIndex());
            }
        }
        return out;
    }

    /** The memory type {@link #buffer(long, boolean)} picks for device-local buffers. */
    public int defaultDeviceType() {
        return deviceType(bufferTypeBits());
    }

    /** memoryTypeBits of a storage/transfer buffer like the ones this class makes. */
    private int bufferTypeBits() {
        try (MemoryStack s = stackPush()) {
            LongBuffer lp = s.mallocLong(1);
            check(vkCreateBuffer(device, VkBufferCreateInfo.calloc(s).sType$Default().size(65536)
                    .usage(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT)
                    .sharingMode(VK_SHARING_MODE_EXCLUSIVE), null, lp), "vkCreateBuffer");
            VkMemoryRequirements req = VkMemoryRequirements.calloc(s);
            vkGetBufferMemoryRequirements(device, lp.get(0), req);
            vkDestroyBuffer(device, lp.get(0), null);
            return req.memoryTypeBits();
        }
    }

    /** A device-local buffer in the given memory type (-1: the default choice). */
    public Buffer buffer(long bytes, boolean hostVisible, Alloc alloc, int memoryType) {
        if (alloc == Alloc.DEVICE_ADDRESS && !deviceAddress) {
            throw new IllegalStateException("device-address memory needs a RawVulkan made with deviceAddress = true");
        }
        try (MemoryStack s = stackPush()) {
            LongBuffer lp = s.mallocLong(1);
            int usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
            if (alloc == Alloc.DEVICE_ADDRESS) usage |= VK12.VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
            check(vkCreateBuffer(device, VkBufferCreateInfo.calloc(s).sType$Default().size(bytes).usage(usage)
                    .sharingMode(VK_SHARING_MODE_EXCLUSIVE), null, lp), "vkCreateBuffer");
            long buf = lp.get(0);
            VkMemoryRequirements req = VkMemoryRequirements.calloc(s);
            vkGetBufferMemoryRequirements(device, buf, req);
            int type = hostVisible ? hostType(req.memoryTypeBits())
                    : memoryType >= 0 ? memoryType : deviceType(req.memoryTypeBits());
            VkMemoryAllocateInfo mai = VkMemoryAllocateInfo.calloc(s).sType$Default().allocationSize(req.size()).memoryTypeIndex(type);
            if (alloc == Alloc.DEDICATED) {
                mai.pNext(VkMemoryDedicatedAllocateInfo.calloc(s).sType$Default().buffer(buf));
            } else if (alloc == Alloc.DEVICE_ADDRESS) {
                mai.pNext(VkMemoryAllocateFlagsInfo.calloc(s).sType$Default().flags(VK12.VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT));
            }
            int r = vkAllocateMemory(device, mai, null, lp);
            if (r != VK_SUCCESS) {
                vkDestroyBuffer(device, buf, null);
                check(r, "vkAllocateMemory(" + bytes + ")");
            }
            long mem = lp.get(0);
            check(vkBindBufferMemory(device, buf, mem, 0), "vkBindBufferMemory");
            MemorySegment view = null;
            if (hostVisible) {
                PointerBuffer pp = s.mallocPointer(1);
                check(vkMapMemory(device, mem, 0, VK_WHOLE_SIZE, 0, pp), "vkMapMemory");
                view = MemorySegment.ofAddress(pp.get(0)).reinterpret(bytes);
            }
            Buffer b = new Buffer(buf, mem, bytes, view);
            owned.add(b);
            return b;
        }
    }

    private int deviceType(int bits) {
        int t = findType(bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
        return t >= 0 ? t : findType(bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
    }

    private int hostType(int bits) {
        int coherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        int t = findType(bits, coherent | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (t < 0) t = findType(bits, coherent, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (t < 0) t = findType(bits, coherent, 0);
        if (t < 0) throw new JkomputeException("no host-visible coherent memory type on " + name);
        return t;
    }

    private int findType(int bits, int want, int avoid) {
        for (int i = 0; i < memProps.memoryTypeCount(); i++) {
            int f = memProps.memoryTypes(i).propertyFlags();
            if ((bits & (1 << i)) != 0 && (f & want) == want && (f & avoid) == 0) return i;
        }
        return -1;
    }

    public Pipeline pipeline(byte[] spirv, int pushBytes, Buffer... buffers) {
        Pipeline p = new Pipeline(spirv, pushBytes, buffers);
        owned.add(p);
        return p;
    }

    /** Resets and begins the command buffer, runs {@code body}, ends it. */
    public void record(Consumer<VkCommandBuffer> body) {
        try (MemoryStack s = stackPush()) {
            check(vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
            check(vkBeginCommandBuffer(cmd, VkCommandBufferBeginInfo.calloc(s).sType$Default()), "vkBeginCommandBuffer");
        }
        body.accept(cmd);
        check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    }

    public void resetQueries(VkCommandBuffer c) {
        vkCmdResetQueryPool(c, queryPool, 0, queryCapacity);
    }

    /** The first timestamp, at the top of the pipe as jkompute writes it. */
    public void timestampTop(VkCommandBuffer c, int slot) {
        vkCmdWriteTimestamp(c, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queryPool, slot);
    }

    public void timestamp(VkCommandBuffer c, int slot) {
        vkCmdWriteTimestamp(c, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queryPool, slot);
    }

    /** Timestamps [0, count) of the last submission, in nanoseconds from the first. */
    public double[] timestampsNanos(int count) {
        try (MemoryStack s = stackPush()) {
            LongBuffer out = s.mallocLong(count);
            check(vkGetQueryPoolResults(device, queryPool, 0, count, out, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                    "vkGetQueryPoolResults");
            double[] r = new double[count];
            for (int i = 0; i < count; i++) r[i] = (out.get(i) - out.get(0)) * (double) timestampPeriod;
            return r;
        }
    }

    public void copy(VkCommandBuffer c, Buffer src, Buffer dst, long bytes) {
        try (MemoryStack s = stackPush()) {
            VkMemoryBarrier.Buffer mb = VkMemoryBarrier.calloc(1, s).sType$Default()
                    .srcAccessMask(VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)
                    .dstAccessMask(VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
            vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT, 0, mb, null, null);
            vkCmdCopyBuffer(c, src.handle, dst.handle, VkBufferCopy.calloc(1, s).size(bytes));
        }
    }

    /** Makes device writes visible to host reads after the fence (the barrier jkompute ends each recording with). */
    public void hostBarrier(VkCommandBuffer c) {
        try (MemoryStack s = stackPush()) {
            VkMemoryBarrier.Buffer mb = VkMemoryBarrier.calloc(1, s).sType$Default()
                    .srcAccessMask(VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT).dstAccessMask(VK_ACCESS_HOST_READ_BIT);
            vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                    VK_PIPELINE_STAGE_HOST_BIT, 0, mb, null, null);
        }
    }

    /** vkQueueSubmit with the reused fence. */
    public void submit() {
        if (io.jkompute.Shutdown.isStopping()) {
            // the baseline's own device is not a Manager's: stop here so it is closed (by the suite unwinding)
            // before the JVM exits, not left running under the driver's exit handlers
            throw new IllegalStateException("jkompute is stopping (the JVM is exiting): raw Vulkan baseline stopped");
        }
        check(vkQueueSubmit(queue, submitInfo, fence), "vkQueueSubmit");
    }

    /** Busy-polls the fence, then resets it. */
    public void waitSpin() {
        int r;
        while ((r = vkGetFenceStatus(device, fence)) == VK_NOT_READY) {
            Thread.onSpinWait();
        }
        check(r, "vkGetFenceStatus");
        check(vkResetFences(device, fenceBuf), "vkResetFences");
    }

    /**
     * One more command buffer with its own fence, for work shaped like several jkompute sequences in flight at once.
     * Freed with the buffers by {@link #freeAll()}.
     */
    public final class Recording implements AutoCloseable {
        final VkCommandBuffer commands;
        final long ownFence;
        private final VkSubmitInfo info;
        private final PointerBuffer cmds;
        private final LongBuffer fences;
        private boolean closed;

        Recording() {
            try (MemoryStack s = stackPush()) {
                PointerBuffer pp = s.mallocPointer(1);
                LongBuffer lp = s.mallocLong(1);
                check(vkAllocateCommandBuffers(device, VkCommandBufferAllocateInfo.calloc(s).sType$Default().commandPool(pool)
                        .level(VK_COMMAND_BUFFER_LEVEL_PRIMARY).commandBufferCount(1), pp), "vkAllocateCommandBuffers");
                commands = new VkCommandBuffer(pp.get(0), device);
                check(vkCreateFence(device, VkFenceCreateInfo.calloc(s).sType$Default(), null, lp), "vkCreateFence");
                ownFence = lp.get(0);
            }
            cmds = MemoryUtil.memAllocPointer(1).put(0, commands);
            info = VkSubmitInfo.calloc().sType$Default().pCommandBuffers(cmds);
            fences = MemoryUtil.memAllocLong(1).put(0, ownFence);
        }

        public void record(Consumer<VkCommandBuffer> body) {
            try (MemoryStack s = stackPush()) {
                check(vkBeginCommandBuffer(commands, VkCommandBufferBeginInfo.calloc(s).sType$Default()), "vkBeginCommandBuffer");
            }
            body.accept(commands);
            check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
        }

        public void submit() {
            check(vkQueueSubmit(queue, info, ownFence), "vkQueueSubmit");
        }

        /** Busy-polls this recording's fence, then resets it. */
        public void waitSpin() {
            int r;
            while ((r = vkGetFenceStatus(device, ownFence)) == VK_NOT_READY) {
                Thread.onSpinWait();
            }
            check(r, "vkGetFenceStatus");
            check(vkResetFences(device, fences), "vkResetFences");
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            vkFreeCommandBuffers(device, pool, commands);
            vkDestroyFence(device, ownFence, null);
            info.free();
            MemoryUtil.memFree(cmds);
            MemoryUtil.memFree(fences);
        }
    }

    public Recording recording() {
        Recording r = new Recording();
        owned.add(r);
        return r;
    }

    /** Frees the buffers and pipelines made so far (they are freed at close anyway). */
    public void freeAll() {
        vkDeviceWaitIdle(device);
        for (AutoCloseable c : owned) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
        owned.clear();
    }

    /** Blocks in vkWaitForFences, then resets the fence. */
    public void waitBlock() {
        check(vkWaitForFences(device, fenceBuf, true, Long.MAX_VALUE), "vkWaitForFences");
        check(vkResetFences(device, fenceBuf), "vkResetFences");
    }

    public void submitAndWait() {
        submit();
        waitSpin();
    }

    static void check(int r, String what) {
        if (r != VK_SUCCESS) {
            throw new JkomputeException("raw Vulkan baseline: " + what + " failed with VkResult " + r);
        }
    }

    @Override
    public void close() {
        freeAll();
        submitInfo.free();
        MemoryUtil.memFree(submitCmds);
        MemoryUtil.memFree(fenceBuf);
        memProps.free();
        vkDestroyQueryPool(device, queryPool, null);
        vkDestroyFence(device, fence, null);
        vkDestroyCommandPool(device, pool, null);
        vkDestroyDevice(device, null);
        vkDestroyInstance(instance, null);
    }
}
