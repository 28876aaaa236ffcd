package io.jkompute.internal;

import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.util.spvc.Spv.*;
import static org.lwjgl.util.spvc.Spvc.*;

import io.jkompute.ShaderBinding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.system.MemoryUtil;
import org.lwjgl.util.spvc.SpvcReflectedResource;
import org.lwjgl.util.spvc.SpvcSpecializationConstant;

/**
 * What a compute shader's SPIR-V declares, read with SPIRV-Cross (LWJGL's {@code lwjgl-spvc}): its bindings, its
 * push-constant block, its specialization constants and its local size. Used to check an algorithm's tensors and
 * constants against the shader before Vulkan sees them: a mismatch there is undefined behaviour, not an error.
 *
 * @param bindings         every resource, ordered by set then binding
 * @param sets             the descriptor set of each entry in {@code bindings}
 * @param pushConstants    the push-constant block's members in offset order; empty without one
 * @param pushConstantSize the block's declared size in bytes; 0 without one
 * @param specConstants    the specialization constants, ordered by id
 * @param localSize        local_size_x/y/z (the defaults, where they are specialization constants)
 */
public record ShaderReflection(List<ShaderBinding> bindings, List<Integer> sets, List<Member> pushConstants,
        int pushConstantSize, List<SpecConstant> specConstants, int[] localSize) {

    /** A push-constant member: its name, offset, size and type as the shader declares them. */
    public record Member(String name, int offset, int size, String type) {}

    /** A specialization constant: its {@code constant_id}, name, and scalar type and width. */
    public record SpecConstant(int id, String name, String type, int byteSize, boolean floating) {}

    public ShaderReflection {
        bindings = List.copyOf(bindings);
        sets = List.copyOf(sets);
        pushConstants = List.copyOf(pushConstants);
        specConstants = List.copyOf(specConstants);
        localSize = localSize.clone();
    }

    @Override
    public int[] localSize() {
        return localSize.clone();
    }

    /**
     * Reflects {@code spirv} (a whole module, words in host order).
     *
     * @throws IllegalArgumentException when SPIRV-Cross cannot parse it, with its message
     */
    public static ShaderReflection of(byte[] spirv) {
        ByteBuffer code = MemoryUtil.memAlloc(spirv.length).order(ByteOrder.nativeOrder());
        code.put(0, spirv);
        try (MemoryStack stack = stackPush()) {
            PointerBuffer p = stack.mallocPointer(1);
            check(spvc_context_create(p), 0, "spvc_context_create");
            long context = p.get(0);
            try {
                check(spvc_context_parse_spirv(context, code.asIntBuffer(), spirv.length / 4, p), context,
                        "the SPIR-V could not be parsed");
                long ir = p.get(0);
                check(spvc_context_create_compiler(context, SPVC_BACKEND_NONE, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, p),
                        context, "spvc_context_create_compiler");
                return reflect(context, p.get(0), stack);
            } finally {
                spvc_context_destroy(context);   // frees the compiler, the IR and every list it handed out
            }
        } finally {
            MemoryUtil.memFree(code);
        }
    }

    private static ShaderReflection reflect(long context, long compiler, MemoryStack stack) {
        PointerBuffer p = stack.mallocPointer(1);
        check(spvc_compiler_create_shader_resources(compiler, p), context, "spvc_compiler_create_shader_resources");
        long resources = p.get(0);

        record Found(int set, ShaderBinding binding) {}
        List<Found> found = new ArrayList<>();
        int[][] kinds = {
            {SPVC_RESOURCE_TYPE_STORAGE_BUFFER, ShaderBinding.Kind.STORAGE_BUFFER.ordinal()},
            {SPVC_RESOURCE_TYPE_STORAGE_IMAGE, ShaderBinding.Kind.STORAGE_IMAGE.ordinal()},
            {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, ShaderBinding.Kind.UNIFORM_BUFFER.ordinal()},
            {SPVC_RESOURCE_TYPE_SAMPLED_IMAGE, ShaderBinding.Kind.SAMPLED_IMAGE.ordinal()},
            {SPVC_RESOURCE_TYPE_SEPARATE_IMAGE, ShaderBinding.Kind.SAMPLED_IMAGE.ordinal()},
            {SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS, ShaderBinding.Kind.OTHER.ordinal()},
            {SPVC_RESOURCE_TYPE_ACCELERATION_STRUCTURE, ShaderBinding.Kind.OTHER.ordinal()},
        };
        for (int[] k : kinds) {
            for (SpvcReflectedResource r : list(context, resources, k[0], stack)) {
                int set = spvc_compiler_get_decoration(compiler, r.id(), SpvDecorationDescriptorSet);
                int binding = spvc_compiler_get_decoration(compiler, r.id(), SpvDecorationBinding);
                // a buffer block's instance is mostly anonymous ('buffer B { ... };'): then the block's name
                String name = spvc_compiler_get_name(compiler, r.id());
                if (name == null || name.isEmpty()) {
                    name = spvc_compiler_get_name(compiler, r.base_type_id());
                }
                ShaderBinding.Kind kind = ShaderBinding.Kind.values()[k[1]];
                if (kind == ShaderBinding.Kind.SAMPLED_IMAGE || kind == ShaderBinding.Kind.STORAGE_IMAGE) {
                    // a texel buffer is an image type with dimension Buffer: still not a tensor or image of ours
                    long type = spvc_compiler_get_type_handle(compiler, r.type_id());
                    if (spvc_type_get_basetype(type) == SPVC_BASETYPE_IMAGE && spvc_type_get_image_dimension(type) == SpvDimBuffer) {
                        kind = ShaderBinding.Kind.OTHER;
                    }
                }
                found.add(new Found(set, new ShaderBinding(binding, kind, name == null ? "" : name)));
            }
        }
        found.sort(Comparator.comparingInt((Found f) -> f.set).thenComparingInt(f -> f.binding.index()));

        List<Member> members = new ArrayList<>();
        int pushSize = 0;
        for (SpvcReflectedResource r : list(context, resources, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, stack)) {
            long block = spvc_compiler_get_type_handle(compiler, r.base_type_id());
            check(spvc_compiler_get_declared_struct_size(compiler, block, p), context, "spvc_compiler_get_declared_struct_size");
            pushSize = (int) p.get(0);
            for (int i = 0; i < spvc_type_get_num_member_types(block); i++) {
                int offset = spvc_compiler_get_member_decoration(compiler, r.base_type_id(), i, SpvDecorationOffset);
                check(spvc_compiler_get_declared_struct_member_size(compiler, block, i, p), context,
                        "spvc_compiler_get_declared_struct_member_size");
                String name = spvc_compiler_get_member_name(compiler, r.base_type_id(), i);
                members.add(new Member(name == null ? "" : name, offset, (int) p.get(0),
                        typeName(spvc_compiler_get_type_handle(compiler, spvc_type_get_member_type(block, i)))));
            }
        }
        members.sort(Comparator.comparingInt(Member::offset));

        PointerBuffer count = stack.mallocPointer(1);
        check(spvc_compiler_get_specialization_constants(compiler, p, count), context,
                "spvc_compiler_get_specialization_constants");
        List<SpecConstant> specs = new ArrayList<>();
        if (count.get(0) > 0) {
            for (SpvcSpecializationConstant c : new SpvcSpecializationConstant.Buffer(p.get(0), (int) count.get(0))) {
                long type = spvc_compiler_get_type_handle(compiler, spvc_constant_get_type(spvc_compiler_get_constant_handle(compiler, c.id())));
                int base = spvc_type_get_basetype(type);
                boolean floating = base == SPVC_BASETYPE_FP16 || base == SPVC_BASETYPE_FP32 || base == SPVC_BASETYPE_FP64;
                // a bool specialization constant takes a 32-bit VkBool32
                int bytes = base == SPVC_BASETYPE_BOOLEAN ? 4 : spvc_type_get_bit_width(type) / 8;
                String name = spvc_compiler_get_name(compiler, c.id());
                specs.add(new SpecConstant(c.constant_id(), name == null ? "" : name, typeName(type), bytes, floating));
            }
        }
        specs.sort(Comparator.comparingInt(SpecConstant::id));

        int[] local = new int[3];
        for (int i = 0; i < 3; i++) {
            local[i] = spvc_compiler_get_execution_mode_argument_by_index(compiler, SpvExecutionModeLocalSize, i);
        }
        return new ShaderReflection(found.stream().map(Found::binding).toList(), found.stream().map(Found::set).toList(),
                members, pushSize, specs, local);
    }

    private static SpvcReflectedResource.Buffer list(long context, long resources, int type, MemoryStack stack) {
        PointerBuffer list = stack.mallocPointer(1);
        PointerBuffer size = stack.mallocPointer(1);
        check(spvc_resources_get_resource_list_for_type(resources, type, list, size), context,
                "spvc_resources_get_resource_list_for_type");
        return new SpvcReflectedResource.Buffer(list.get(0), (int) size.get(0));
    }

    /** A GLSL-like name of a scalar, vector, array or struct type, for messages. */
    private static String typeName(long type) {
        int base = spvc_type_get_basetype(type);
        String scalar = switch (base) {
            case SPVC_BASETYPE_BOOLEAN -> "bool";
            case SPVC_BASETYPE_INT8 -> "int8";
            case SPVC_BASETYPE_UINT8 -> "uint8";
            case SPVC_BASETYPE_INT16 -> "int16";
            case SPVC_BASETYPE_UINT16 -> "uint16";
            case SPVC_BASETYPE_INT32 -> "int32";
            case SPVC_BASETYPE_UINT32 -> "uint32";
            case SPVC_BASETYPE_INT64 -> "int64";
            case SPVC_BASETYPE_UINT64 -> "uint64";
            case SPVC_BASETYPE_FP16 -> "float16";
            case SPVC_BASETYPE_FP32 -> "float32";
            case SPVC_BASETYPE_FP64 -> "float64";
            case SPVC_BASETYPE_STRUCT -> "struct";
            default -> "type " + base;
        };
        int vec = spvc_type_get_vector_size(type);
        String name = vec > 1 ? scalar + "x" + vec : scalar;
        for (int d = 0; d < spvc_type_get_num_array_dimensions(type); d++) {
            name += "[" + spvc_type_get_array_dimension(type, d) + "]";
        }
        return name;
    }

    private static void check(int result, long context, String what) {
        if (result != SPVC_SUCCESS) {
            String detail = context == 0 ? "" : spvc_context_get_last_error_string(context);
            throw new IllegalArgumentException("SPIR-V reflection failed: " + what + " (SPIRV-Cross: "
                    + (detail == null || detail.isEmpty() ? "error " + result : detail) + ")");
        }
    }
}
