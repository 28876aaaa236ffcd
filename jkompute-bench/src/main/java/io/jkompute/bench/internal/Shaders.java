package io.jkompute.bench.internal;

import io.jkompute.Shader;

/**
 * The GLSL every Vulkan row runs, jkompute and raw Vulkan alike (the same SPIR-V), matching {@link CudaKernels}:
 * grid-stride vec4 loops over 256-invocation workgroups.
 */
final class Shaders {
    private Shaders() {}

    static final int LOCAL = 256;

    static final String SAXPY = """
            #version 450
            layout(local_size_x = 256) in;
            layout(push_constant) uniform P { float a; uint n4; } pc;
            layout(std430, binding = 0) readonly buffer X { vec4 x[]; };
            layout(std430, binding = 1) readonly buffer Y { vec4 y[]; };
            layout(std430, binding = 2) writeonly buffer O { vec4 o[]; };
            void main() {
                uint stride = gl_NumWorkGroups.x * 256u;
                for (uint i = gl_GlobalInvocationID.x; i < pc.n4; i += stride) o[i] = pc.a * x[i] + y[i];
            }
            """;

    static final String COPY = """
            #version 450
            layout(local_size_x = 256) in;
            layout(push_constant) uniform P { uint n4; } pc;
            layout(std430, binding = 0) readonly buffer X { vec4 x[]; };
            layout(std430, binding = 1) writeonly buffer O { vec4 o[]; };
            void main() {
                uint stride = gl_NumWorkGroups.x * 256u;
                for (uint i = gl_GlobalInvocationID.x; i < pc.n4; i += stride) o[i] = x[i];
            }
            """;

    /** One workgroup of 64: each invocation adds 1 to its element. The smallest useful dispatch. */
    static final String TINY = """
            #version 450
            layout(local_size_x = 64) in;
            layout(std430, binding = 0) buffer O { uint o[]; };
            void main() { o[gl_LocalInvocationID.x] += 1u; }
            """;

    /** Pass 1 of the sum: each workgroup sums its grid-stride share into partials[group]. */
    static final String PARTIALS = """
            #version 450
            layout(local_size_x = 256) in;
            layout(push_constant) uniform P { uint n4; } pc;
            layout(std430, binding = 0) readonly buffer X { vec4 x[]; };
            layout(std430, binding = 1) writeonly buffer O { float partials[]; };
            shared float s[256];
            void main() {
                uint stride = gl_NumWorkGroups.x * 256u;
                float acc = 0.0;
                for (uint i = gl_GlobalInvocationID.x; i < pc.n4; i += stride) { vec4 v = x[i]; acc += (v.x + v.y) + (v.z + v.w); }
                uint t = gl_LocalInvocationID.x;
                s[t] = acc;
                barrier();
                for (uint k = 128u; k > 0u; k >>= 1u) { if (t < k) s[t] += s[t + k]; barrier(); }
                if (t == 0u) partials[gl_WorkGroupID.x] = s[0];
            }
            """;

    /** Pass 2: one workgroup sums the partials. */
    static final String FINISH = """
            #version 450
            layout(local_size_x = 256) in;
            layout(push_constant) uniform P { uint n; } pc;
            layout(std430, binding = 0) readonly buffer I { float partials[]; };
            layout(std430, binding = 1) writeonly buffer O { float total[]; };
            shared float s[256];
            void main() {
                uint t = gl_LocalInvocationID.x;
                float acc = 0.0;
                for (uint i = t; i < pc.n; i += 256u) acc += partials[i];
                s[t] = acc;
                barrier();
                for (uint k = 128u; k > 0u; k >>= 1u) { if (t < k) s[t] += s[t + k]; barrier(); }
                if (t == 0u) total[0] = s[0];
            }
            """;

    static byte[] spirv(String glsl) {
        return Shader.compile(glsl);
    }

    /** Workgroups for a grid-stride kernel over {@code n4} vec4s, capped so every device can launch them. */
    static int groups(long n4, int cap) {
        return (int) Math.max(1, Math.min(cap, (n4 + LOCAL - 1) / LOCAL));
    }
}
