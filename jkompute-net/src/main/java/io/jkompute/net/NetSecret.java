package io.jkompute.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * The shared secret that authenticates everything jkompute sends between processes: the fragment driver's control
 * messages and every frame of every link carry an HMAC-SHA256 keyed by it, and a message without a valid one is
 * dropped and counted. Processes that hold the same secret trust each other; nobody else can steer, join or change a
 * run (see the module README for what this does not protect: the traffic is not encrypted).
 *
 * <p>Where it comes from, first match wins (never from the command line, where every user of the host could read
 * it in the process list):
 * <ol>
 *   <li>the environment variable {@value #ENV} (the secret itself, any text);</li>
 *   <li>the file named by the environment variable {@value #ENV_FILE} or the system property {@value #PROPERTY_FILE};</li>
 *   <li>the file {@code ~/.jkompute/net-secret}, made with 32 random bytes (mode 0600, in a 0700 folder) by the first
 *   process that needs it, so every process of one user on one host agrees without any setup; a process on another
 *   host needs a copy of that file or the variable.</li>
 * </ol>
 * A secret file readable by other users is refused.
 */
public final class NetSecret {
    /** The secret itself. */
    public static final String ENV = "JKOMPUTE_NET_SECRET";
    /** A file holding the secret. */
    public static final String ENV_FILE = "JKOMPUTE_NET_SECRET_FILE";
    /** The system property naming a file holding the secret. */
    public static final String PROPERTY_FILE = "jkompute.net.secretFile";

    private static volatile NetSecret cached;

    private final byte[] key;
    private final String text;
    private final String source;
    private final boolean created;

    private NetSecret(String text, String source, boolean created) {
        if (text.isBlank()) {
            throw new IllegalStateException("the jkompute network secret from " + source + " is empty");
        }
        this.text = text.strip();
        this.source = source;
        this.created = created;
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update("jkompute-net-secret-v1\0".getBytes(StandardCharsets.UTF_8));
            this.key = d.digest(this.text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A secret given directly (tests, embedding applications). */
    public static NetSecret of(String text) {
        return new NetSecret(text, "the application", false);
    }

    /** The process's secret, found (or made) once. */
    public static NetSecret get() {
        NetSecret s = cached;
        if (s == null) {
            synchronized (NetSecret.class) {
                if (cached == null) {
                    cached = resolve();
                }
                s = cached;
            }
        }
        return s;
    }

    private static NetSecret resolve() {
        String env = System.getenv(ENV);
        if (env != null && !env.isBlank()) {
            return new NetSecret(env, "the environment variable " + ENV, false);
        }
        String file = System.getenv(ENV_FILE);
        if (file == null || file.isBlank()) {
            file = System.getProperty(PROPERTY_FILE);
        }
        if (file != null && !file.isBlank()) {
            return fromFile(Path.of(file), false);
        }
        return fromFile(defaultFile(), true);
    }

    /** {@code ~/.jkompute/net-secret}. */
    public static Path defaultFile() {
        return Path.of(System.getProperty("user.home"), ".jkompute", "net-secret");
    }

    private static NetSecret fromFile(Path file, boolean create) {
        try {
            boolean made = false;
            if (create && !Files.exists(file)) {
                made = make(file);
            }
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException("no jkompute network secret file " + file);
            }
            try {
                Set<PosixFilePermission> p = Files.getPosixFilePermissions(file);
                if (p.contains(PosixFilePermission.GROUP_READ) || p.contains(PosixFilePermission.OTHERS_READ)) {
                    throw new IllegalStateException("the jkompute network secret file " + file + " is readable by "
                            + "other users (" + PosixFilePermissions.toString(p) + "); make it private: chmod 600 "
                            + file);
                }
            } catch (UnsupportedOperationException noPosix) {
                // not a POSIX file system: the platform's own access control applies
            }
            return new NetSecret(Files.readString(file, StandardCharsets.UTF_8), "the file " + file, made);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the jkompute network secret file " + file + ": "
                    + e.getMessage(), e);
        }
    }

    /** Makes the file with a fresh random secret; false when another process made it first (then that one counts). */
    private static boolean make(Path file) throws IOException {
        Path dir = file.getParent();
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir);
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException noPosix) {
                // not POSIX
            }
        }
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        Path tmp = Files.createTempFile(dir, ".net-secret", ".tmp");
        try {
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException noPosix) {
                // not POSIX
            }
            Files.writeString(tmp, HexFormat.of().formatHex(random) + "\n", StandardCharsets.UTF_8);
            // a hard link fails if the name exists: two processes making it at once agree on the first one
            Files.createLink(file, tmp);
            return true;
        } catch (FileAlreadyExistsException raced) {
            return false;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The 32-byte key derived from the secret (HMAC-SHA256 keys are derived from it per link). */
    public byte[] key() {
        return key.clone();
    }

    byte[] keyNoCopy() {
        return key;
    }

    /** Where the secret came from, for messages ("the file /home/u/.jkompute/net-secret"). */
    public String source() {
        return source;
    }

    /** Whether this process made the secret file just now. */
    public boolean created() {
        return created;
    }

    /**
     * The secret's text, for handing to a child process through its environment ({@value #ENV}), never through its
     * command line.
     */
    public String text() {
        return text;
    }

    /** A short fingerprint (first 8 hex digits of a hash of the key) that two hosts can compare without revealing it. */
    public String fingerprint() {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(key);
            return HexFormat.of().formatHex(h, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "NetSecret from " + source + " (fingerprint " + fingerprint() + ")";
    }
}
