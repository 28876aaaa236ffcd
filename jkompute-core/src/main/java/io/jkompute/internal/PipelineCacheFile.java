package io.jkompute.internal;

import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.VK10.*;

import io.jkompute.DeviceProperties;
import io.jkompute.Logging;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.system.MemoryUtil;
import org.lwjgl.vulkan.VkDevice;

/**
 * The pipeline cache kept on disk between runs, one file per device, because creating a compute pipeline without a
 * cache cost 8-16 ms on the NVIDIA H200 measured for this project. Directory: {@code JKOMPUTE_CACHE_DIR} (or
 * {@code -Djkompute.cache.dir}), else {@code $XDG_CACHE_HOME/jkompute}, else {@code ~/.cache/jkompute}; {@code none}
 * turns it off. A cache that cannot be read or written is only logged: it is an optimisation.
 *
 * <p>The bytes last read or written are kept per file with the file's size and time stamp, so a program that makes a
 * Manager per job reads the file again only when another process changed it, and writes it only when the driver's
 * data has changed.
 */
final class PipelineCacheFile {
    private static final Logging.Log LOG = Logging.logger(PipelineCacheFile.class);

    private static final Map<Path, Known> KNOWN = new ConcurrentHashMap<>();

    /** What this process last read from or wrote to a cache file, and the file's state at that moment. */
    private record Known(byte[] data, long size, FileTime modified) {
        boolean matches(Path f) throws IOException {
            return Files.size(f) == size && Files.getLastModifiedTime(f).equals(modified);
        }
    }

    private PipelineCacheFile() {}

    static Path file(DeviceProperties p) {
        String dir = System.getProperty("jkompute.cache.dir", System.getenv("JKOMPUTE_CACHE_DIR"));
        if (dir == null || dir.isBlank()) {
            String xdg = System.getenv("XDG_CACHE_HOME");
            dir = (xdg != null && !xdg.isBlank() ? xdg : System.getProperty("user.home") + "/.cache") + "/jkompute";
        } else if (dir.equalsIgnoreCase("none") || dir.equalsIgnoreCase("off")) {
            return null;
        }
        return Path.of(dir, "pipelines-" + p.deviceUuidHex() + ".bin");
    }

    static byte[] load(DeviceProperties p) {
        Path f = file(p);
        if (f == null) {
            return null;
        }
        if (!Files.isRegularFile(f)) {
            return null;
        }
        try {
            Known known = KNOWN.get(f);
            if (known != null && known.matches(f)) {
                return known.data;
            }
            byte[] b = Files.readAllBytes(f);
            LOG.debug("pipeline cache: {} bytes from {}", b.length, f);
            if (b.length == 0) {
                return null;
            }
            remember(f, b);
            return b;
        } catch (IOException e) {
            LOG.debug("pipeline cache not read from {}: {}", f, e.toString());
            return null;
        }
    }

    private static void remember(Path f, byte[] b) throws IOException {
        KNOWN.put(f, new Known(b, Files.size(f), Files.getLastModifiedTime(f)));
    }

    static void save(DeviceProperties p, VkDevice device, long cache) {
        Path f = file(p);
        if (f == null) {
            return;
        }
        try (MemoryStack stack = stackPush()) {
            PointerBuffer size = stack.mallocPointer(1);
            if (vkGetPipelineCacheData(device, cache, size, null) != VK_SUCCESS || size.get(0) == 0) {
                return;
            }
            ByteBuffer data = MemoryUtil.memAlloc((int) size.get(0));
            try {
                if (vkGetPipelineCacheData(device, cache, size, data) != VK_SUCCESS) {
                    return;
                }
                byte[] b = new byte[(int) size.get(0)];
                data.get(0, b);
                Known known = KNOWN.get(f);
                if (known != null && Arrays.equals(b, known.data) && Files.isRegularFile(f) && known.matches(f)) {
                    return;
                }
                Files.createDirectories(f.getParent());
                Path tmp = Files.createTempFile(f.getParent(), "pipelines", ".tmp");
                Files.write(tmp, b);
                Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                remember(f, b);
                LOG.debug("pipeline cache: {} bytes to {}", b.length, f);
            } finally {
                MemoryUtil.memFree(data);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("pipeline cache not written to {}: {}", f, e.toString());
        }
    }
}
