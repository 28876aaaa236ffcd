package io.jkompute;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.VK10.*;

import io.jkompute.internal.ShaderReflection;
import io.jkompute.internal.SpirvElementTypes;
import io.jkompute.internal.VulkanDevice;
import java.nio.LongBuffer;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.*;

/**
 * A compute pipeline: a SPIR-V shader, the tensors and images it binds (binding i = position i in the list, set 0),
 * the number of workgroups, and specialization and push constants. Made by {@link Manager#algorithm}.
 *
 * <p>{@link #rebuild} and {@link #setPushConstants} change what a dispatch does; sequences that recorded this
 * algorithm notice and re-record themselves before their next evaluation, so they never run stale commands.
 */
public final class Algorithm extends ManagedObject {
    private final Natives natives;
    private List<Memory> memories = List.of();
    private byte[] spirv;
    private Workgroup workgroup = Workgroup.DEFAULT;
    private Constants spec = Constants.NONE;
    private Constants push = Constants.NONE;
    private int pushSize;
    private ShaderReflection reflection;
    private volatile int generation;
    private List<String> typeWarnings = List.of();
    private static final Logging.Log LOG = Logging.logger(Algorithm.class);

    /** The Vulkan objects of the current build, kept apart from the Algorithm so a leak can still be detected. */
    private static final class Natives {
        final VulkanDevice dev;
        long setLayout, pool, set, module, layout, pipeline;

        Natives(VulkanDevice dev) {
            this.dev = dev;
        }

        void destroy() {
            VkDevice d = dev.handle();
            if (pipeline != 0) vkDestroyPipeline(d, pipeline, null);
            if (layout != 0) vkDestroyPipelineLayout(d, layout, null);
            if (module != 0) vkDestroyShaderModule(d, module, null);
            if (pool != 0) vkDestroyDescriptorPool(d, pool, null);
            if (setLayout != 0) vkDestroyDescriptorSetLayout(d, setLayout, null);
            pipeline = layout = module = pool = setLayout = set = 0;
        }
    }

    Algorithm(Manager manager) {
        super(manager, "Algorithm#" + manager.nextId());
        natives = new Natives(manager.device());
        Natives n = natives;
        track(n::destroy);
    }

    /**
     * Replaces everything and builds the pipeline again.
     *
     * @param memories  tensors and images, bound in order; at least one
     * @param spirv     the compiled shader (see {@link Shader#compile(String)})
     * @param workgroup number of workgroups, or {@link Workgroup#DEFAULT}
     * @param spec      specialization constants (constant_id = position)
     * @param push      initial push constants; their size is fixed from now on
     * @throws IllegalArgumentException when the shader's declared interface does not match: a binding without a
     *     tensor or image, a tensor where it declares an image (or the reverse), push constants of another size than
     *     its block, or a specialization constant id it does not declare or of another type
     */
    public synchronized void rebuild(List<? extends Memory> memories, byte[] spirv, Workgroup workgroup, Constants spec,
            Constants push) {
        checkOpen();
        if (memories == null || memories.isEmpty()) {
            throw new IllegalArgumentException("an algorithm needs at least one tensor or image to bind");
        }
        for (Memory m : memories) {
            manager.checkOwned(m, "algorithm");
        }
        Shader.validateSpirv(spirv);
        spec = spec == null ? Constants.NONE : spec;
        push = push == null ? Constants.NONE : push;
        if (spec.types().contains(Constants.Type.STRUCT)) {
            throw new IllegalArgumentException("specialization constants are scalars: int32, uint32, float32 or float64, not a struct");
        }
        DeviceProperties.Limits lim = manager.device().properties().limits();
        if (push.byteSize() % 4 != 0) {
            throw new IllegalArgumentException("push constants must be a multiple of 4 bytes, got " + push.byteSize());
        }
        if (push.byteSize() > lim.maxPushConstantsSize()) {
            throw new IllegalArgumentException("push constants of " + push.byteSize() + " bytes exceed the device's limit of "
                    + lim.maxPushConstantsSize());
        }
        ShaderReflection shader = ShaderReflection.of(spirv);
        checkBindings(shader, memories);
        List<String> warnings = elementTypeWarnings(spirv, memories);
        for (String w : warnings) {
            LOG.warn("{}", w);
        }
        typeWarnings = warnings;
        checkPushConstants(shader, push);
        checkSpecConstants(shader, spec);
        Workgroup wg = workgroup == null || workgroup.isDefault() ? defaultWorkgroup(memories.get(0)) : workgroup;
        int[] max = lim.maxComputeWorkGroupCount();
        if (Integer.toUnsignedLong(wg.x()) > Integer.toUnsignedLong(max[0]) || wg.y() > max[1] || wg.z() > max[2]
                || wg.x() == 0 || wg.y() == 0 || wg.z() == 0) {
            throw new IllegalArgumentException("workgroup count " + wg + " is outside 1.." + max[0] + " x 1.." + max[1]
                    + " x 1.." + max[2] + (workgroup == null || workgroup.isDefault()
                    ? " (the default is one workgroup per element; pass Workgroup.covering(n, localSize) with the"
                      + " shader's local_size_x)" : ""));
        }
        Constants s = spec;
        Constants p = push;
        Runnable replace = () -> {
            natives.destroy();
            this.memories = List.copyOf(memories);
            this.spirv = spirv.clone();
            this.workgroup = wg;
            this.spec = s;
            this.push = p;
            this.pushSize = p.byteSize();
            this.reflection = shader;
            build();
            generation++;
        };
        if (natives.pipeline == 0) {
            manager.building(replace);   // never built: nothing of it can be on the GPU
        } else {
            // a submitted sequence may still run the old pipeline and descriptor set, and one being submitted on
            // another thread may have checked the old generation already: wait for both before destroying them
            if (!manager.freeAfterGpu(replace)) {
                throw new IllegalStateException("rebuild: the Manager of " + this + " is closed");
            }
        }
    }

    /**
     * A tensor whose element type is not what the shader declares for its binding (float vs integer, or another
     * width) has its bits reinterpreted: legal, and Kompute's own tests bind a uint32 tensor to a float shader on
     * purpose, so it runs, with a warning naming the binding. Signedness alone is not reported: shaders commonly read
     * int data as uint, and the bits mean the same for the values such code uses. Byte (bool, int8, uint8) and custom
     * tensors are raw storage or structs the shader may view any way.
     */
    private static List<String> elementTypeWarnings(byte[] spirv, List<? extends Memory> memories) {
        List<String> out = new java.util.ArrayList<>();
        for (Map.Entry<Integer, SpirvElementTypes.Scalar> e : SpirvElementTypes.of(spirv).entrySet()) {
            int b = e.getKey();
            if (b >= memories.size() || !(memories.get(b) instanceof Tensor t)) {
                continue;
            }
            DataType dt = t.dataType();
            if (dt == DataType.CUSTOM || dt.byteSize() == 1) {
                // structs, and byte tensors: untyped storage (a graph's block pools hand out uint8 blocks that
                // kernels view as float or int), not a type the shader could be at odds with
                continue;
            }
            SpirvElementTypes.Scalar s = e.getValue();
            if (s.floating() != dt.isFloatingPoint() || s.bits() != dt.byteSize() * 8) {
                out.add("binding " + b + ": the shader declares " + s + " elements, but " + t + " holds " + dt
                        + "; the shader reinterprets its bits");
            }
        }
        return List.copyOf(out);
    }

    /** The element-type warnings of the last build (for tests). */
    List<String> typeWarnings() {
        return typeWarnings;
    }

    /** Every binding the shader declares has a tensor (storage buffer) or image (storage image) of its kind. */
    private static void checkBindings(ShaderReflection shader, List<? extends Memory> memories) {
        int n = memories.size();
        for (int i = 0; i < shader.bindings().size(); i++) {
            ShaderBinding b = shader.bindings().get(i);
            int set = shader.sets().get(i);
            if (set != 0) {
                throw new IllegalArgumentException("the shader declares " + b + " in descriptor set " + set
                        + "; jkompute binds every tensor and image in set 0");
            }
            if (b.kind() != ShaderBinding.Kind.STORAGE_BUFFER && b.kind() != ShaderBinding.Kind.STORAGE_IMAGE) {
                throw new IllegalArgumentException("the shader declares " + b + "; jkompute binds tensors as storage"
                        + " buffers and images as storage images");
            }
            if (b.index() >= n) {
                throw new IllegalArgumentException("the shader declares " + b + ", but " + n + " tensor(s)/image(s)"
                        + " were given (bindings 0-" + (n - 1) + ")");
            }
            boolean image = memories.get(b.index()) instanceof Image;
            if (image != (b.kind() == ShaderBinding.Kind.STORAGE_IMAGE)) {
                throw new IllegalArgumentException("the shader declares " + b + ", but " + (image ? "an image" : "a tensor")
                        + " was given at that position: " + memories.get(b.index()));
            }
        }
        // a tensor the shader has no binding for is legal Vulkan and common: the compiler drops unused bindings
    }

    /**
     * The push constants given fill the shader's push-constant block exactly: fewer bytes leave members undefined
     * (VUID-VkComputePipelineCreateInfo-layout-00703), more mean the block's layout is not what the caller thinks.
     */
    private static void checkPushConstants(ShaderReflection shader, Constants push) {
        int declared = shader.pushConstantSize();
        int given = push.byteSize();
        if (given == declared) {
            return;
        }
        if (declared == 0) {
            // nothing reads them (the compiler drops a block the shader never reads): legal Vulkan, and harmless
            return;
        }
        String block = shader.pushConstants().stream().map(m -> (m.name().isEmpty() ? "member" : m.name()) + " at offset "
                + m.offset() + " (" + m.type() + ")").collect(Collectors.joining(", "));
        if (given < declared) {
            ShaderReflection.Member missing = shader.pushConstants().stream().filter(m -> m.offset() + m.size() > given)
                    .findFirst().orElseThrow();
            throw new IllegalArgumentException("the shader's push-constant block is " + declared + " bytes (" + block
                    + "), but " + given + " bytes were given: " + (missing.name().isEmpty() ? "the member" : "'" + missing.name() + "'")
                    + " at offset " + missing.offset() + " (" + missing.type() + ") has no value");
        }
        throw new IllegalArgumentException(given + " bytes of push constants were given, but the shader's push-constant"
                + " block is " + declared + " bytes (" + block + "): the bytes from offset " + declared + " on have no member");
    }

    /** Every specialization constant given (constant_id = position) is declared, with a type of its width and kind. */
    private static void checkSpecConstants(ShaderReflection shader, Constants spec) {
        for (int id = 0; id < spec.count(); id++) {
            Constants.Type given = spec.types().get(id);
            final int wanted = id;
            ShaderReflection.SpecConstant declared = shader.specConstants().stream().filter(c -> c.id() == wanted)
                    .findFirst().orElse(null);
            if (declared == null) {
                throw new IllegalArgumentException("specialization constant " + id + " was given (" + given.name().toLowerCase()
                        + "), but the shader declares no constant_id " + id + " (it declares " + (shader.specConstants().isEmpty()
                        ? "none" : shader.specConstants().stream().map(c -> String.valueOf(c.id())).collect(Collectors.joining(", ")))
                        + ")");
            }
            boolean floating = given == Constants.Type.FLOAT32 || given == Constants.Type.FLOAT64;
            if (floating != declared.floating() || given.size != declared.byteSize()) {
                throw new IllegalArgumentException("specialization constant " + id + (declared.name().isEmpty() ? "" : " ('"
                        + declared.name() + "')") + " is " + declared.type() + " in the shader, but "
                        + given.name().toLowerCase() + " was given");
            }
        }
    }

    private static Workgroup defaultWorkgroup(Memory first) {
        if (first.size() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the default workgroup count is the first tensor's size, " + first.size()
                    + ", which is too large; give a Workgroup");
        }
        return Workgroup.of((int) first.size());
    }

    private void build() {
        VkDevice d = manager.device().handle();
        int n = memories.size();
        try (MemoryStack stack = stackPush()) {
            VkDescriptorSetLayoutBinding.Buffer bindings = VkDescriptorSetLayoutBinding.calloc(n, stack);
            int buffers = 0;
            int images = 0;
            for (int i = 0; i < n; i++) {
                boolean img = memories.get(i) instanceof Image;
                bindings.get(i).binding(i).descriptorCount(1).stageFlags(VK_SHADER_STAGE_COMPUTE_BIT)
                        .descriptorType(img ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
                if (img) images++; else buffers++;
            }
            LongBuffer lp = stack.mallocLong(1);
            check(vkCreateDescriptorSetLayout(d, VkDescriptorSetLayoutCreateInfo.calloc(stack).sType$Default()
                    .pBindings(bindings), null, lp), "vkCreateDescriptorSetLayout");
            natives.setLayout = lp.get(0);

            VkDescriptorPoolSize.Buffer sizes = VkDescriptorPoolSize.calloc((buffers > 0 ? 1 : 0) + (images > 0 ? 1 : 0), stack);
            int k = 0;
            if (buffers > 0) sizes.get(k++).type(VK_DESCRIPTOR_TYPE_STORAGE_BUFFER).descriptorCount(buffers);
            if (images > 0) sizes.get(k).type(VK_DESCRIPTOR_TYPE_STORAGE_IMAGE).descriptorCount(images);
            check(vkCreateDescriptorPool(d, VkDescriptorPoolCreateInfo.calloc(stack).sType$Default().maxSets(1)
                    .pPoolSizes(sizes), null, lp), "vkCreateDescriptorPool");
            natives.pool = lp.get(0);
            check(vkAllocateDescriptorSets(d, VkDescriptorSetAllocateInfo.calloc(stack).sType$Default()
                    .descriptorPool(natives.pool).pSetLayouts(stack.longs(natives.setLayout)), lp), "vkAllocateDescriptorSets");
            natives.set = lp.get(0);

            VkWriteDescriptorSet.Buffer writes = VkWriteDescriptorSet.calloc(n, stack);
            for (int i = 0; i < n; i++) {
                Memory m = memories.get(i);
                VkWriteDescriptorSet w = writes.get(i).sType$Default().dstSet(natives.set).dstBinding(i).descriptorCount(1);
                if (m instanceof Image img) {
                    w.descriptorType(VK_DESCRIPTOR_TYPE_STORAGE_IMAGE).pImageInfo(VkDescriptorImageInfo.calloc(1, stack)
                            .imageView(img.view).imageLayout(VK_IMAGE_LAYOUT_GENERAL));
                } else {
                    Tensor t = (Tensor) m;
                    w.descriptorType(VK_DESCRIPTOR_TYPE_STORAGE_BUFFER).pBufferInfo(VkDescriptorBufferInfo.calloc(1, stack)
                            .buffer(t.buffer).offset(0).range(VK_WHOLE_SIZE));
                }
            }
            vkUpdateDescriptorSets(d, writes, null);

            natives.module = createShaderModule(d, spirv, stack);

            VkPipelineLayoutCreateInfo plci = VkPipelineLayoutCreateInfo.calloc(stack).sType$Default()
                    .pSetLayouts(stack.longs(natives.setLayout));
            if (pushSize > 0) {
                plci.pPushConstantRanges(VkPushConstantRange.calloc(1, stack).stageFlags(VK_SHADER_STAGE_COMPUTE_BIT)
                        .offset(0).size(pushSize));
            }
            check(vkCreatePipelineLayout(d, plci, null, lp), "vkCreatePipelineLayout");
            natives.layout = lp.get(0);

            VkSpecializationInfo specInfo = null;
            if (!spec.isEmpty()) {
                VkSpecializationMapEntry.Buffer entries = VkSpecializationMapEntry.calloc(spec.count(), stack);
                for (int i = 0; i < spec.count(); i++) {
                    entries.get(i).constantID(i).offset(spec.offset(i)).size(spec.size(i));
                }
                specInfo = VkSpecializationInfo.calloc(stack).pMapEntries(entries).pData(stack.bytes(spec.rawBytes()));
            }
            VkComputePipelineCreateInfo.Buffer pci = VkComputePipelineCreateInfo.calloc(1, stack).sType$Default()
                    .layout(natives.layout);
            pci.stage().sType$Default().stage(VK_SHADER_STAGE_COMPUTE_BIT).module(natives.module)
                    .pName(stack.UTF8("main")).pSpecializationInfo(specInfo);
            int r = vkCreateComputePipelines(d, manager.device().pipelineCache(), pci, null, lp);
            if (r != VK_SUCCESS) {
                natives.destroy();
                check(r, "vkCreateComputePipelines");
            }
            natives.pipeline = lp.get(0);
        } catch (RuntimeException e) {
            natives.destroy();
            throw e;
        }
    }

    /** A shader module; the code goes through the heap, since shaders can exceed LWJGL's 64 KiB stack. */
    static long createShaderModule(VkDevice d, byte[] spirv, MemoryStack stack) {
        java.nio.ByteBuffer code = org.lwjgl.system.MemoryUtil.memAlloc(spirv.length).put(0, spirv);
        try {
            LongBuffer lp = stack.mallocLong(1);
            check(vkCreateShaderModule(d, VkShaderModuleCreateInfo.calloc(stack).sType$Default().pCode(code), null, lp),
                    "vkCreateShaderModule");
            return lp.get(0);
        } finally {
            org.lwjgl.system.MemoryUtil.memFree(code);
        }
    }

    /**
     * Replaces the push constants used by dispatches recorded from now on (and by sequences that re-record).
     *
     * @throws IllegalArgumentException if the size differs from the size the algorithm was built with
     */
    public synchronized void setPushConstants(Constants constants) {
        checkOpen();
        checkPushSize(constants);
        this.push = constants;
        generation++;
    }

    void checkPushSize(Constants constants) {
        if (constants.byteSize() != pushSize) {
            throw new IllegalArgumentException("push constants of " + constants.byteSize() + " bytes given, but "
                    + this + " was built with " + pushSize + " bytes of push constants");
        }
    }

    /** Whether the pipeline exists (false for the empty algorithm OpMult fills in). */
    public boolean isBuilt() {
        return natives.pipeline != 0;
    }

    /** The tensors and images bound, in binding order. */
    public List<Memory> memories() {
        return memories;
    }

    /**
     * The workgroup count dispatches use, with the default already resolved; {@link Workgroup#DEFAULT} before the first
     * build.
     */
    public Workgroup workgroup() {
        return workgroup;
    }

    /** The specialization constants the pipeline was built with. */
    public Constants specializationConstants() {
        return spec;
    }

    /** The stored push constants a dispatch uses unless it brings its own. */
    public Constants pushConstants() {
        return push;
    }

    /** The bindings the shader declares, read from its SPIR-V, in binding order; empty before the first build. */
    public synchronized List<ShaderBinding> bindings() {
        return reflection == null ? List.of() : reflection.bindings();
    }

    /** The size in bytes of the shader's push-constant block; 0 without one (or before the first build). */
    public synchronized int pushConstantSize() {
        return reflection == null ? 0 : reflection.pushConstantSize();
    }

    /**
     * The shader's local size {x, y, z} ({@code layout(local_size_x = ...)}); where it is a specialization constant,
     * its default. {0, 0, 0} before the first build.
     */
    public synchronized int[] localSize() {
        return reflection == null ? new int[3] : reflection.localSize();
    }

    int generation() {
        return generation;
    }

    /**
     * Binds the pipeline and descriptor set, pushes constants (the override, or the algorithm's own) and dispatches.
     */
    void recordDispatch(CommandRecorder rec, Constants override) {
        if (!isBuilt()) {
            throw new IllegalStateException(this + " has not been built: give it tensors and a shader first");
        }
        VkCommandBuffer cmd = rec.cmd();
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, natives.pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, natives.layout, 0, rec.stack().longs(natives.set), null);
        Constants p = override != null ? override : push;
        if (pushSize > 0) {
            vkCmdPushConstants(cmd, natives.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, rec.stack().bytes(p.rawBytes()));
        }
        vkCmdDispatch(cmd, workgroup.x(), workgroup.y(), workgroup.z());
    }
}
