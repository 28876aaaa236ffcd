package io.jkompute.net;

import java.io.IOException;
import java.net.DatagramSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * UDP ports for tests. Each test JVM takes a block of 600 ports in 2000–9199 by locking that block's file in the
 * temporary folder for as long as it runs, and hands the block's ports out in turn: test classes running side by side
 * in other JVMs (surefire's forks, another build on the machine) never get the same port, as two ports picked by the
 * OS (a bind to 0) in two JVMs could, and did (one test's link then took another test's forged HELLO and lost its own
 * sender). The blocks lie below 10000, where fragment workers pick theirs at random (10000–32767, up to Linux's
 * ephemeral range): the fragment tests run in another fork beside the two-process tests, and a worker that took a
 * port this class had just handed out left the test's receiver with "Address already in use" and its sender waiting
 * 100 s for an answer. Where every block is taken, ports come from the OS as before.
 */
public final class TestPorts {
    private static final int FIRST = 2_000, BLOCK = 600, BLOCKS = 12;
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final int BASE = claimBlock();

    private TestPorts() {
    }

    /** A UDP port that is free right now and that no other test running on this machine has been given. */
    public static int free() {
        if (BASE > 0) {
            for (int tries = 0; tries < BLOCK; tries++) {
                int port = BASE + Math.floorMod(NEXT.getAndIncrement(), BLOCK);
                try (DatagramSocket s = new DatagramSocket(port)) {
                    return s.getLocalPort();
                } catch (IOException taken) {
                    // in use by something else on this machine: the next one
                }
            }
        }
        try (DatagramSocket s = new DatagramSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free UDP port: " + e.getMessage(), e);
        }
    }

    /** The first port of a block this JVM holds the lock of until it exits; 0 when none could be taken. */
    private static int claimBlock() {
        try {
            Path dir = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "jkompute-test-ports"));
            for (int k = 0; k < BLOCKS; k++) {
                FileChannel ch = FileChannel.open(dir.resolve("block-" + k + ".lock"), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
                FileLock lock = ch.tryLock();
                if (lock != null) {
                    return FIRST + k * BLOCK; // the channel stays open, and the lock held, until the JVM exits
                }
                ch.close();
            }
        } catch (IOException e) {
            // no lock files here: ports from the OS
        }
        return 0;
    }
}
