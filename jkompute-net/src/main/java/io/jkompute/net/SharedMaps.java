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
 * again when the transmitter grew it). Messages are decoded where they lie; a mapping stays open while a message's
 * tensors refer to it (a newer, larger mapping of the same file replaces it for later messages), and closes when
 * the link has closed and the last of them is released.
 *
 * <p>Decoding in place keeps the decoder's guarantees: it reads every header field once into its own variables,
 * checks them and makes each tensor from those (a bounds-checked slice of the mapping), so bytes changed in the
 * file afterwards can change tensor values but never what memory a tensor spans. Only processes of this user can
 * change the file at all (trust model in the README).
 *
 * <p>A slot is accepted only where the transmitter's {@link SharedSlots} put it: a regular file (not a link) named
 * for this link, in a {@code jkompute-aeron-<pid>} folder directly under /dev/shm or the temp folder, folder and file
 * owned by this process's user, the folder mode 0700. Anything else is a protocol violation.
 */
final class SharedMaps implements AutoCloseable {
    private static final Set<PosixFilePermission> PRIVATE = Set.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    /** One mapping of a slot file; closed when it is no longer current and no message refers to it. */
    static final class Mapping {
        private final SharedMaps owner;
        private final Arena arena;
        private final MemorySegment map;
        private int users;
        private boolean current = true;

        private Mapping(SharedMaps owner, Arena arena, MemorySegment map) {
            this.owner = owner;
            this.arena = arena;
            this.map = map;
        }

        MemorySegment map() {
            return map;
        }

        Arena arena() {
            return arena;
        }

        /** A message decoded in place refers to this mapping until {@link #release}. */
        void retain() {
            synchronized (owner) {
                users++;
            }
        }

        void release() {
            synchronized (owner) {
                if (--users == 0 && !current) {
                    arena.close();
                }
            }
        }

        /** Replaced or the link closed: closes now if unused, else when the last user releases it. */
        private void retire() {
            synchronized (owner) {
                current = false;
                if (users == 0) {
                    arena.close();
                }
            }
        }
    }

    private final Map<String, Mapping> maps = new HashMap<>();
    private final String user = System.getProperty("user.name");

    /**
     * The slot named {@code name} for {@code linkId}, at least {@code bytes} long.
     *
     * @throws WireFormat.FormatException when the name is not a private slot of this link, or the file is too short
     */
    Mapping slot(String name, long linkId, int slot, long bytes) {
        Mapping m = maps.get(name);
        if (m != null && m.map.byteSize() >= bytes) {
            return m;
        }
        Path f = check(name, linkId, slot);
        if (m != null) {
            maps.remove(name);
            m.retire();
        }
        Arena a = Arena.ofShared();
        // read-write and shared: the graph may write into a tensor it received, as it may into one from the
        // network; the transmitter never reads the slot, and writes it again only after its RELEASED frame
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            if (size < bytes) {
                throw new WireFormat.FormatException("shared slot " + f + " holds " + size + " bytes, the message "
                        + "declares " + bytes);
            }
            MemorySegment map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, a);
            Mapping made = new Mapping(this, a, map);
            maps.put(name, made);
            return made;
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

    /** Closes the mappings no message refers to; the others close when their last message is released. */
    @Override
    public void close() {
        for (Mapping m : maps.values()) {
            m.retire();
        }
        maps.clear();
    }
}
