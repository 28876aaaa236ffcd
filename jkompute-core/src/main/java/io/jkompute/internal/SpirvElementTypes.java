package io.jkompute.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The element type a compute shader declares for each storage buffer of descriptor set 0: the scalar inside the
 * buffer block's runtime array ({@code buffer B { float b[]; }} → binding's element is a 32-bit float; a
 * {@code vec4[]} also counts as float 32). Read straight from the SPIR-V words (a few opcodes: decorations, variables,
 * pointers, structs, arrays, vectors, scalars), so a tensor of another type bound there can be named in a warning
 * before its bits are reinterpreted.
 */
public final class SpirvElementTypes {
    /** A scalar type: floating point or integer, its width in bits, and (integers) whether it is signed. */
    public record Scalar(boolean floating, int bits, boolean signed) {
        @Override
        public String toString() {
            return floating ? "float" + bits : (signed ? "int" : "uint") + bits;
        }
    }

    private static final int MAGIC = 0x07230203;
    private static final int OP_TYPE_INT = 21;
    private static final int OP_TYPE_FLOAT = 22;
    private static final int OP_TYPE_VECTOR = 23;
    private static final int OP_TYPE_MATRIX = 24;
    private static final int OP_TYPE_ARRAY = 28;
    private static final int OP_TYPE_RUNTIME_ARRAY = 29;
    private static final int OP_TYPE_STRUCT = 30;
    private static final int OP_TYPE_POINTER = 32;
    private static final int OP_VARIABLE = 59;
    private static final int OP_DECORATE = 71;
    private static final int DECORATION_BINDING = 33;
    private static final int DECORATION_DESCRIPTOR_SET = 34;

    private SpirvElementTypes() {}

    /**
     * Binding → scalar element type of each set-0 storage buffer whose block holds a runtime array of scalars or
     * vectors (the usual {@code float a[]}); bindings of other shapes (structs of structs, images) are left out.
     * Malformed SPIR-V gives an empty map: Vulkan and the reflection report it.
     */
    public static Map<Integer, Scalar> of(byte[] spirv) {
        if (spirv == null || spirv.length < 20 || spirv.length % 4 != 0) {
            return Map.of();
        }
        ByteBuffer b = ByteBuffer.wrap(spirv).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != MAGIC) {
            b.order(ByteOrder.BIG_ENDIAN);
            if (b.getInt(0) != MAGIC) {
                return Map.of();
            }
        }
        int words = spirv.length / 4;
        Map<Integer, Scalar> scalars = new HashMap<>();
        Map<Integer, Integer> elementOf = new HashMap<>();     // arrays, vectors, matrices → their element type
        Map<Integer, int[]> structs = new HashMap<>();
        Map<Integer, Integer> pointee = new HashMap<>();
        Map<Integer, Integer> variableType = new HashMap<>();
        Map<Integer, Integer> binding = new HashMap<>();
        Map<Integer, Integer> set = new HashMap<>();
        int i = 5;
        while (i < words) {
            int head = b.getInt(i * 4);
            int count = head >>> 16;
            int op = head & 0xffff;
            if (count == 0 || i + count > words) {
                return Map.of();
            }
            int a1 = count > 1 ? b.getInt((i + 1) * 4) : 0;
            int a2 = count > 2 ? b.getInt((i + 2) * 4) : 0;
            int a3 = count > 3 ? b.getInt((i + 3) * 4) : 0;
            switch (op) {
                case OP_TYPE_INT -> scalars.put(a1, new Scalar(false, a2, a3 != 0));
                case OP_TYPE_FLOAT -> scalars.put(a1, new Scalar(true, a2, true));
                case OP_TYPE_VECTOR, OP_TYPE_MATRIX, OP_TYPE_ARRAY, OP_TYPE_RUNTIME_ARRAY -> elementOf.put(a1, a2);
                case OP_TYPE_STRUCT -> {
                    int[] members = new int[count - 2];
                    for (int m = 0; m < members.length; m++) {
                        members[m] = b.getInt((i + 2 + m) * 4);
                    }
                    structs.put(a1, members);
                }
                case OP_TYPE_POINTER -> pointee.put(a1, a3);
                case OP_VARIABLE -> variableType.put(a2, a1);
                case OP_DECORATE -> {
                    if (a2 == DECORATION_BINDING && count > 3) {
                        binding.put(a1, a3);
                    } else if (a2 == DECORATION_DESCRIPTOR_SET && count > 3) {
                        set.put(a1, a3);
                    }
                }
                default -> { }
            }
            i += count;
        }
        Map<Integer, Scalar> out = new TreeMap<>();
        for (Map.Entry<Integer, Integer> e : binding.entrySet()) {
            int var = e.getKey();
            if (set.getOrDefault(var, 0) != 0 || !variableType.containsKey(var)) {
                continue;
            }
            Integer block = pointee.get(variableType.get(var));
            int[] members = block == null ? null : structs.get(block);
            if (members == null || members.length == 0) {
                continue;
            }
            // the runtime array is the block's last member: its element, through vectors and matrices, to a scalar
            int t = members[members.length - 1];
            if (!elementOf.containsKey(t)) {
                continue;
            }
            Scalar s = null;
            for (int depth = 0; depth < 8 && s == null && t != 0; depth++) {
                t = elementOf.getOrDefault(t, 0);
                s = scalars.get(t);
            }
            if (s != null) {
                out.put(e.getValue(), s);
            }
        }
        return out;
    }
}
