package io.jkompute;

import java.util.List;

/**
 * Kompute's built-in element-wise multiply, {@code out[i] = lhs[i] * rhs[i]}, for float32, float64, int32 and uint32
 * tensors. Like Kompute it takes an (empty) algorithm from {@link Manager#algorithm()} and builds it.
 */
public final class OpMult extends OpAlgoDispatch {
    private static final int LOCAL_SIZE = 64;

    /**
     * {@code out[i] = lhs[i] * rhs[i]} over the three tensors in that order, {@code algorithm} empty.
     *
     * @param tensors   exactly three: lhs, rhs, out, all of one type and size
     * @param algorithm an empty algorithm (from {@link Manager#algorithm()}) that this operation builds
     */
    public OpMult(List<Tensor> tensors, Algorithm algorithm) {
        super(build(tensors, algorithm));
    }

    /**
     * {@code out[i] = lhs[i] * rhs[i]}; the three of one type and size, {@code algorithm} empty (from {@link
     * Manager#algorithm()}).
     */
    public OpMult(Tensor lhs, Tensor rhs, Tensor out, Algorithm algorithm) {
        this(List.of(lhs, rhs, out), algorithm);
    }

    private static Algorithm build(List<Tensor> tensors, Algorithm algorithm) {
        if (tensors == null || tensors.size() != 3) {
            throw new IllegalArgumentException("OpMult expects 3 tensors (lhs, rhs, out), got "
                    + (tensors == null ? 0 : tensors.size()));
        }
        if (algorithm == null) {
            throw new IllegalArgumentException("OpMult needs an algorithm to build (Manager.algorithm())");
        }
        Tensor out = tensors.get(2);
        for (Tensor t : tensors) {
            if (t.dataType != out.dataType || t.size != out.size) {
                throw new IllegalArgumentException("OpMult: all three tensors must have one type and size; got "
                        + tensors);
            }
        }
        String glslType = switch (out.dataType) {
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
            case INT32 -> "int";
            case UINT32 -> "uint";
            default -> throw new IllegalArgumentException("OpMult supports float32, float64, int32 and uint32, not " + out.dataType);
        };
        String src = """
                #version 450
                layout(local_size_x = %d) in;
                layout(set = 0, binding = 0) readonly buffer L { %s lhs[]; };
                layout(set = 0, binding = 1) readonly buffer R { %s rhs[]; };
                layout(set = 0, binding = 2) writeonly buffer O { %s res[]; };
                layout(push_constant) uniform P { uint n; };
                void main() {
                    uint i = gl_GlobalInvocationID.x;
                    if (i < n) res[i] = lhs[i] * rhs[i];
                }
                """.formatted(LOCAL_SIZE, glslType, glslType, glslType);
        if (out.size > 0xffffffffL) {
            throw new IllegalArgumentException("OpMult: tensors above 2^32 elements are not supported");
        }
        algorithm.rebuild(tensors, Shader.compile(src, "OpMult.comp"), Workgroup.covering(out.size, LOCAL_SIZE),
                Constants.NONE, Constants.builder().uint32(out.size).build());
        return algorithm;
    }
}
