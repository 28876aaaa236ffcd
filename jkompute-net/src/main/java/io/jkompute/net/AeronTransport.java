package io.jkompute.net;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One embedded Aeron MediaDriver and client per JVM, shared by every network component and closed with the last
 * one. The driver runs in SHARED threading mode (one thread) with small terms, so a process costs one extra thread
 * and a few MiB of log buffers per link. Its directory goes under /dev/shm when that has room (CI containers often
 * give it 64 MiB), else under the temp directory.
 *
 * <p>The directory is private: {@code jkompute-aeron-<pid>} (mode 0700; the driver's files go inside it) holds the
 * log buffers, which carry every message in clear. It is removed when the last user closes, by a shutdown hook on
 * SIGINT/SIGTERM (after the open links said goodbye), and, for a process that could not clean up (SIGKILL, a
 * crash), by the next jkompute process that starts a transport: a {@code jkompute-aeron-<pid>} of this user whose
 * process is gone is deleted then.
 *
 * <p>System properties: {@code jkompute.net.termLength} (bytes, power of two ≥ 64 KiB; default 1 MiB),
 * {@code jkompute.net.aeronDir} (driver directory; default per process).
 */
public final class AeronTransport {
    private static final Logger LOG = LoggerFactory.getLogger(AeronTransport.class);
    private static final long SHM_NEEDED = 256L << 20;
    private static AeronTransport shared;
    private static int users;

    private final MediaDriver driver;
    private final Aeron aeron;
    private final String dir;
    /** The private folder holding the driver's directory (null when the user named the directory). */
    private final Path privateDir;

    private AeronTransport() {
        int term = Integer.getInteger("jkompute.net.termLength", 1 << 20);
        String explicit = System.getProperty("jkompute.net.aeronDir");
        if (explicit != null) {
            privateDir = null;
            dir = explicit;
        } else {
            privateDir = privateDirectory();
            dir = privateDir.resolve("driver").toString();
        }
        MediaDriver.Context ctx = new MediaDriver.Context()
                .aeronDirectoryName(dir)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new BackoffIdleStrategy(64, 64, 1_000, 200_000))
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .publicationTermBufferLength(term)
                .ipcTermBufferLength(term)
                .initialWindowLength(Math.min(term / 2, 512 * 1024))
                .socketRcvbufLength(2 * 1024 * 1024)
                .socketSndbufLength(2 * 1024 * 1024)
                .termBufferSparseFile(true)
                .spiesSimulateConnection(false)
                .warnIfDirectoryExists(false);
        MediaDriver d = null;
        try {
            d = MediaDriver.launchEmbedded(ctx);
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(d.aeronDirectoryName()));
        } catch (RuntimeException e) {
            if (d != null) {
                d.close();
            }
            deletePrivate();
            throw e;
        }
        driver = d;
        LOG.debug("Aeron media driver started in {}", driver.aeronDirectoryName());
    }

    static final String PREFIX = "jkompute-aeron-";

    /** The folders a transport may use: /dev/shm when it has room, else the temp directory. */
    static List<Path> roots() {
        return List.of(Path.of("/dev/shm"), Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** Makes this process's private folder (0700), after removing those of this user's processes that are gone. */
    private static Path privateDirectory() {
        removeStale();
        String name = PREFIX + ProcessHandle.current().pid();
        Path shm = Path.of("/dev/shm");
        Path root;
        try {
            root = Files.isDirectory(shm) && Files.isWritable(shm)
                    && Files.getFileStore(shm).getUsableSpace() >= SHM_NEEDED ? shm
                    : Path.of(System.getProperty("java.io.tmpdir"));
        } catch (IOException | SecurityException e) {
            root = Path.of(System.getProperty("java.io.tmpdir"));
        }
        Path p = root.resolve(name);
        try {
            deleteTree(p); // a folder left by an earlier process that had this pid
            try {
                Files.createDirectory(p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (UnsupportedOperationException noPosix) {
                Files.createDirectory(p);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot make the private Aeron folder " + p + ": " + e, e);
        }
        return p;
    }

    /**
     * Deletes {@code jkompute-aeron-<pid>} folders of this user whose process is gone (a SIGKILL or a crash left
     * them); returns how many.
     */
    public static int removeStale() {
        int removed = 0;
        String me = System.getProperty("user.name");
        for (Path root : roots()) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(root, PREFIX + "*")) {
                for (Path p : ds) {
                    long pid;
                    try {
                        pid = Long.parseLong(p.getFileName().toString().substring(PREFIX.length()));
                    } catch (NumberFormatException e) {
                        continue;
                    }
                    if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                        continue;
                    }
                    try {
                        if (!Files.getOwner(p).getName().equals(me)) {
                            continue;
                        }
                        deleteTree(p);
                        removed++;
                        LOG.debug("removed {} (its process {} is gone)", p, pid);
                    } catch (IOException | UnsupportedOperationException e) {
                        // another process removes it, or not ours to remove
                    }
                }
            } catch (IOException e) {
                // unreadable root: nothing to clean there
            }
        }
        return removed;
    }

    static void deleteTree(Path p) throws IOException {
        // two processes that start at the same time both remove a stale folder they find: what the other one removed
        // first is not an error (Files.walk reports it as an UncheckedIOException around a NoSuchFileException)
        for (int attempt = 0; attempt < 3 && Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS); attempt++) {
            try (var walk = Files.walk(p)) {
                for (Path q : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(q);
                }
            } catch (java.nio.file.NoSuchFileException gone) {
                // the folder itself went meanwhile
            } catch (java.io.UncheckedIOException e) {
                if (!(e.getCause() instanceof java.nio.file.NoSuchFileException)) {
                    throw e.getCause();
                }
            }
        }
    }

    private void deletePrivate() {
        if (privateDir != null) {
            try {
                deleteTree(privateDir);
            } catch (IOException e) {
                LOG.warn("cannot remove {}: {}", privateDir, e.toString());
            }
        }
    }

    /** Links to say goodbye (as failed) when the process is stopped by a signal before they closed. */
    private static final Set<Runnable> GOODBYES = ConcurrentHashMap.newKeySet();
    private static Thread hook;
    /** Transports being closed now (the shutdown hook waits for them, so their folders go too). */
    private static int closing;

    /** Registers what a link sends when SIGINT/SIGTERM ends the process before it closed; the returned handle removes it. */
    static Runnable onSignal(Runnable goodbye) {
        GOODBYES.add(goodbye);
        return () -> GOODBYES.remove(goodbye);
    }

    private static void shutdown() {
        for (Runnable r : GOODBYES) {
            try {
                r.run();
            } catch (RuntimeException e) {
                // the process ends anyway
            }
        }
        // a graph closing on its own (the run command's own hook interrupts it) releases the transport; give it
        // a moment, then close what is left so the private folder goes in every case
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < deadline) {
            synchronized (AeronTransport.class) {
                if (shared == null && closing == 0) {
                    return;
                }
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                break;
            }
        }
        AeronTransport t;
        synchronized (AeronTransport.class) {
            t = shared;
            shared = null;
            users = 0;
        }
        if (t != null) {
            t.closeNow(50);
        }
    }

    private void closeNow(long lingerMs) {
        try {
            Thread.sleep(lingerMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            aeron.close();
            driver.close();
        } finally {
            deletePrivate();
        }
    }

    /** Takes a reference to the JVM's transport, starting it on first use. */
    public static synchronized AeronTransport acquire() {
        if (shared == null) {
            shared = new AeronTransport();
            if (hook == null) {
                hook = new Thread(AeronTransport::shutdown, "jkompute-net-shutdown");
                Runtime.getRuntime().addShutdownHook(hook);
            }
        }
        users++;
        return shared;
    }

    /** Gives a reference back; the last one closes the client and the driver. */
    public void release() {
        synchronized (AeronTransport.class) {
            if (shared != this || users <= 0) {
                return;
            }
            if (--users > 0) {
                return;
            }
            shared = null;
        }
        // let the driver send what closed publications still hold (a goodbye, the last chunks)
        synchronized (AeronTransport.class) {
            closing++;
        }
        try {
            closeNow(Long.getLong("jkompute.net.lingerMs", 100));
        } finally {
            synchronized (AeronTransport.class) {
                closing--;
            }
        }
        LOG.debug("Aeron media driver in {} closed", dir);
    }

    /** The Aeron client over this process's embedded media driver. */
    public Aeron aeron() {
        return aeron;
    }

    /**
     * This process's private folder (mode 0700), where same-host links put their shared slots; null when the user
     * named the driver's directory ({@code jkompute.net.aeronDir}): then links go through UDP only.
     */
    Path privateFolder() {
        return privateDir;
    }

    /** The driver's directory. */
    public String driverDirectory() {
        return dir;
    }
}
