package io.jkompute;

import static org.lwjgl.util.shaderc.Shaderc.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GLSL compute shaders compiled to SPIR-V at run time with shaderc (Vulkan 1.2 target), cached by a hash of the
 * source so compiling the same text again is free.
 */
public final class Shader {
    private static final Logging.Log LOG = Logging.logger(Shader.class);
    private static final int SPIRV_MAGIC = 0x07230203;
    private static final Map<String, byte[]> CACHE = new ConcurrentHashMap<>();
    private static final Pattern DIAGNOSTIC = Pattern.compile("^[^:\\n]*:(\\d+): (?:error|warning): (.*)$", Pattern.MULTILINE);
    private static long compiler;

    private Shader() {}

    /** Compiles GLSL compute source to SPIR-V. */
    public static byte[] compile(String glsl) {
        return compile(glsl, "shader.comp");
    }

    /** Compiles a {@code .comp} file. */
    public static byte[] compile(Path file) {
        try {
            return compile(Files.readString(file), file.getFileName().toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read shader " + file, e);
        }
    }

    /**
     * Compiles GLSL compute source; {@code name} appears in error messages.
     *
     * @throws ShaderCompileException with the compiler's messages and line numbers
     */
    public static byte[] compile(String glsl, String name) {
        if (glsl == null || glsl.isBlank()) {
            throw new IllegalArgumentException("shader source is empty");
        }
        String key = sha256(name + "\0" + glsl);
        byte[] cached = CACHE.get(key);
        if (cached != null) {
            return cached.clone();
        }
        byte[] spirv = compileNow(glsl, name);
        CACHE.put(key, spirv);
        return spirv.clone();
    }

    private static byte[] compileNow(String glsl, String name) {
        long t0 = System.nanoTime();
        long c = compiler();
        long options = shaderc_compile_options_initialize();
        try {
            shaderc_compile_options_set_target_env(options, shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
            shaderc_compile_options_set_optimization_level(options, shaderc_optimization_level_performance);
            // keeps the names (OpName) the optimizer would strip, so reflection and its messages can say 'In', 'pc.mul'
            shaderc_compile_options_set_generate_debug_info(options);
            long result = shaderc_compile_into_spv(c, glsl, shaderc_compute_shader, name, "main", options);
            if (result == 0) {
                throw new JkomputeException("shaderc returned no result (out of memory?)");
            }
            try {
                if (shaderc_result_get_compilation_status(result) != shaderc_compilation_status_success) {
                    String log = shaderc_result_get_error_message(result);
                    throw new ShaderCompileException(log == null ? "(no message)" : log, parse(log));
                }
                ByteBuffer bytes = shaderc_result_get_bytes(result);
                byte[] out = new byte[bytes.remaining()];
                bytes.get(out);
                LOG.debug("compiled {} to {} bytes of SPIR-V in {} ms", name, out.length, (System.nanoTime() - t0) / 1_000_000);
                return out;
            } finally {
                shaderc_result_release(result);
            }
        } finally {
            shaderc_compile_options_release(options);
        }
    }

    private static List<ShaderCompileException.Error> parse(String log) {
        List<ShaderCompileException.Error> out = new ArrayList<>();
        if (log == null) {
            return out;
        }
        Matcher m = DIAGNOSTIC.matcher(log);
        while (m.find()) {
            out.add(new ShaderCompileException.Error(Integer.parseInt(m.group(1)), m.group(2).strip()));
        }
        if (out.isEmpty() && !log.isBlank()) {
            out.add(new ShaderCompileException.Error(0, log.strip()));
        }
        return out;
    }

    private static synchronized long compiler() {
        if (compiler == 0) {
            // one compiler for the process: shaderc allows concurrent use of a compiler object
            compiler = shaderc_compiler_initialize();
            if (compiler == 0) {
                throw new JkomputeException("shaderc_compiler_initialize failed");
            }
        }
        return compiler;
    }

    /** Checks that bytes look like SPIR-V (magic number, whole 32-bit words) before a driver sees them. */
    static void validateSpirv(byte[] spirv) {
        if (spirv == null || spirv.length == 0) {
            throw new IllegalArgumentException("SPIR-V is empty");
        }
        if (spirv.length % 4 != 0 || spirv.length < 20) {
            throw new IllegalArgumentException("SPIR-V must be a whole number of 32-bit words (at least a 5-word header), got "
                    + spirv.length + " bytes");
        }
        int magic = ByteBuffer.wrap(spirv).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        if (magic != SPIRV_MAGIC) {
            throw new IllegalArgumentException(String.format("not SPIR-V: magic number 0x%08x, expected 0x%08x"
                    + " (pass GLSL through Shader.compile first)", magic, SPIRV_MAGIC));
        }
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
