package io.jkompute.bench.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jkompute.Shader;
import io.jkompute.Workgroup;
import io.jkompute.bench.DispatchLoop;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * {@link DispatchLoop#SHADER} ({@code o += a + b}) in raw Vulkan over {@code n} uints with a = 1 and b = o = 0, so after
 * k dispatches every output is k. The buffers belong to {@code vk} (freed by its {@code freeAll}).
 */
final class RawAdd {
    final RawVulkan.Pipeline pipeline;
    final ByteBuffer push;
    final int groups;
    private final RawVulkan vk;
    private final RawVulkan.Buffer out, staging;
    private final long bytes;

    RawAdd(RawVulkan vk, int n) {
        this.vk = vk;
        this.bytes = n * 4L;
        RawVulkan.Buffer a = vk.buffer(bytes, false), b = vk.buffer(bytes, false);
        out = vk.buffer(bytes, false);
        staging = vk.buffer(bytes, true);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ones = arena.allocate(bytes);
            for (int i = 0; i < n; i++) ones.setAtIndex(JAVA_INT, i, 1);
            BandwidthSuite.upload(vk, staging, ones, a, bytes);
            BandwidthSuite.upload(vk, staging, arena.allocate(bytes), b, bytes);
        }
        resetOutput();
        pipeline = vk.pipeline(Shader.compile(DispatchLoop.SHADER), 4, a, b, out);
        push = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).putInt(0, n);
        groups = Workgroup.covering(n, 256).x();
    }

    /** Zeroes the output. */
    void resetOutput() {
        try (Arena arena = Arena.ofConfined()) {
            BandwidthSuite.upload(vk, staging, arena.allocate(bytes), out, bytes);
        }
    }

    /** Copies the output back (re-recording the command buffer) and returns the host-visible copy. */
    MemorySegment readOutput() {
        vk.record(c -> {
            vk.copy(c, out, staging, bytes);
            vk.hostBarrier(c);
        });
        vk.submitAndWait();
        return staging.mapped();
    }
}
