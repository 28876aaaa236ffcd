package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes that start at the same time both remove the stale Aeron folder of a process that is gone; the one
 * that comes second must not fail on what the first removed under it (a worker once exited with
 * NoSuchFileException on another process's {@code driver/publications}).
 */
class StaleFolderRaceTest {
    @TempDir
    Path dir;

    @Test
    void foldersRemovedFromSeveralThreadsAtOnceGoWithoutAnError() throws Exception {
        for (int round = 0; round < 20; round++) {
            Path stale = dir.resolve("jkompute-aeron-" + round);
            for (int d = 0; d < 50; d++) {
                Path sub = Files.createDirectories(stale.resolve("driver").resolve("d" + d));
                for (int f = 0; f < 4; f++) {
                    Files.writeString(sub.resolve("f" + f), "x");
                }
            }
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread th = new Thread(() -> {
                    try {
                        go.await();
                        AeronTransport.deleteTree(stale);
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                });
                th.start();
                threads.add(th);
            }
            go.countDown();
            for (Thread th : threads) {
                th.join(30_000);
            }
            assertEquals(List.of(), List.copyOf(errors), "round " + round);
            assertFalse(Files.exists(stale), "round " + round);
        }
    }
}
