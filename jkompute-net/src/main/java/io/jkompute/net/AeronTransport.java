package io.jkompute.net;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One embedded Aeron MediaDriver and client per JVM, shared by every network component and closed with the last
 * one. The driver runs in SHARED threading mode (one thread) with small terms, so a process costs one extra thread
 * and a few MiB of log buffers per link. Its directory goes under /dev/shm when that has room (CI containers often
 * give it 64 MiB), else under the temp directory.
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

    private AeronTransport() {
        int term = Integer.getInteger("jkompute.net.termLength", 1 << 20);
        dir = directory();
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
        driver = MediaDriver.launchEmbedded(ctx);
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
        LOG.debug("Aeron media driver started in {}", driver.aeronDirectoryName());
    }

    private static String directory() {
        String explicit = System.getProperty("jkompute.net.aeronDir");
        if (explicit != null) {
            return explicit;
        }
        String name = "jkompute-aeron-" + ProcessHandle.current().pid();
        Path shm = Path.of("/dev/shm");
        try {
            if (Files.isDirectory(shm) && Files.isWritable(shm) && Files.getFileStore(shm).getUsableSpace() >= SHM_NEEDED) {
                return shm.resolve(name).toString();
            }
        } catch (IOException | SecurityException e) {
            // fall through to the temp directory
        }
        return Path.of(System.getProperty("java.io.tmpdir")).resolve(name).toString();
    }

    /** Takes a reference to the JVM's transport, starting it on first use. */
    public static synchronized AeronTransport acquire() {
        if (shared == null) {
            shared = new AeronTransport();
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
        try {
            // let the driver send what closed publications still hold (a goodbye, the last chunks)
            Thread.sleep(Long.getLong("jkompute.net.lingerMs", 100));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        aeron.close();
        driver.close();
        LOG.debug("Aeron media driver in {} closed", dir);
    }

    public Aeron aeron() {
        return aeron;
    }

    /** The driver's directory. */
    public String driverDirectory() {
        return dir;
    }
}
