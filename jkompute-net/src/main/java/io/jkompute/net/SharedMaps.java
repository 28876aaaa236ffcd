package io.jkompute.net;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The receiving side of a same-host link's shared memory: maps the slot files its transmitter names (each once,
 * again when the transmitter grew it) and copies a message out of its slot into this process's own memory before
 * anything reads it, so the decoder's checks hold for bytes nobody else can change afterwards.
 *
 * <p>A slot is accepted only where the transmitter's {@link SharedSlots} put it: a regular file (not a link) named
 * for this link, in a {@code jkompute-aeron-<pid>} folder directly under /dev/shm or the temp folder, folder and file
 * owned by this process's user, the folder mode 0700. Anything else is a protocol violation.
 */
final class SharedMaps implements AutoCloseable {
    private static final Set<PosixFilePermission> PRIVATE = Set.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private record Mapping(Arena arena, MemorySegment map) {
    }

    private final Map<String, Mapping> maps = new HashMap<>();
    private final String user = System.getProperty("user.name");

    /**
     * The slot named {@code name} for {@code linkId}, at least {@code bytes} long.
     *
     * @throws WireFormat.FormatException when the name is not a private slot of this link, or the file is too short
     */
    MemorySegment slot(String name, long linkId, int slot, long bytes) {
        Mapping m = maps.get(name);
        if (m != null && m.map.byteSize() >= bytes) {
            return m.map;
        }
        Path f = check(name, linkId, slot);
        if (m != null) {
            maps.remove(name);
            m.arena.close();
        }
        Arena a = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            if (size < bytes) {
                throw new WireFormat.FormatException("shared slot " + f + " holds " + size + " bytes, the message "
                        + "declares " + bytes);
            }
            MemorySegment map = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, a);
            maps.put(name, new Mapping(a, map));
            return map;
        } catch (IOException | RuntimeException e) {
            a.close();
            if (e instanceof WireFormat.FormatException fe) {
                throw fe;
            }
            throw new WireFormat.FormatException("cannot map shared slot " + f + ": " + e);
        }
    }

    private Path check(String name, long linkId, int slot) {
        Path f;
        try {
            f = Path.of(name);
        } catch (RuntimeException e) {
            throw new WireFormat.FormatException("shared slot name is not a path");
        }
        if (!f.isAbsolute() || !f.normalize().equals(f) || f.getParent() == null
                || f.getParent().getParent() == null
                || !f.getFileName().toString().equals(SharedSlots.fileName(linkId, slot))) {
            throw new WireFormat.FormatException("shared slot " + name + " is not slot " + slot + " of this link");
        }
        Path folder = f.getParent();
        String fn = folder.getFileName().toString();
        boolean underRoot = AeronTransport.roots().stream().anyMatch(r -> r.toAbsolutePath().normalize()
                .equals(folder.getParent()));
        if (!underRoot || !fn.startsWith(AeronTransport.PREFIX)
                || !fn.substring(AeronTransport.PREFIX.length()).matches("[0-9]{1,19}")) {
            throw new WireFormat.FormatException("shared slot " + name + " is not in a jkompute private folder");
        }
        try {
            PosixFileAttributes d = Files.readAttributes(folder, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            PosixFileAttributes a = Files.readAttributes(f, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!d.isDirectory() || !d.owner().getName().equals(user) || !d.permissions().equals(PRIVATE)) {
                throw new WireFormat.FormatException("the folder of shared slot " + name
                        + " is not this user's private (0700) folder");
            }
            if (!a.isRegularFile() || !a.owner().getName().equals(user)) {
                throw new WireFormat.FormatException("shared slot " + name + " is not a regular file of this user");
            }
        } catch (IOException | UnsupportedOperationException e) {
            throw new WireFormat.FormatException("cannot check shared slot " + name + ": " + e);
        }
        return f;
    }

    @Override
    public void close() {
        for (Mapping m : maps.values()) {
            m.arena.close();
        }
        maps.clear();
    }
}
