package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a receiver accepts as a shared slot: only the file its transmitter made for this link, in a private folder of
 * this user, and only as many bytes as the file holds. Everything else is a {@link WireFormat.FormatException} (a
 * protocol violation that ends the link), never a crash. The bytes written are the bytes read, padding zeroed.
 */
class SharedMapsTest {
    private AeronTransport transport;
    private Path folder;
    private final long link = 0x1234_5678_9abcL;

    @BeforeEach
    void open() {
        transport = AeronTransport.acquire();
        folder = transport.privateFolder();
    }

    @AfterEach
    void close() {
        transport.release();
    }

    private static WireFormat.Encoded message(long bytes, Arena arena) {
        MemorySegment head = arena.allocate(40);
        head.fill((byte) 0x5a);
        MemorySegment body = arena.allocate(bytes);
        for (long i = 0; i < bytes; i++) {
            body.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
        }
        return new WireFormat.Encoded(64 + bytes + 24, List.of(new WireFormat.Part(0, head),
                new WireFormat.Part(64, body)));
    }

    @Test
    void theSlotTheTransmitterWroteReadsBackExactly() {
        try (Arena arena = Arena.ofConfined(); SharedSlots slots = new SharedSlots(folder, link, 3);
             SharedMaps maps = new SharedMaps()) {
            WireFormat.Encoded e = message(3 << 20, arena);
            MemorySegment dirty = slots.slot(1, e.messageBytes());
            dirty.fill((byte) 0xff); // what an earlier, larger message left: padding must be zeroed again
            slots.write(1, e);
            MemorySegment got = maps.slot(slots.file(1).toString(), link, 1, e.messageBytes()).map();
            MemorySegment want = e.toSegment(arena);
            assertEquals(-1, want.mismatch(got.asSlice(0, e.messageBytes())));
            // a larger message grows the file; the receiver maps it again
            WireFormat.Encoded big = message(5 << 20, arena);
            slots.write(1, big);
            MemorySegment again = maps.slot(slots.file(1).toString(), link, 1, big.messageBytes()).map();
            assertEquals(-1, big.toSegment(arena).mismatch(again.asSlice(0, big.messageBytes())));
        }
    }

    @Test
    void aMappingAMessageStillReadsOutlivesItsReplacementAndTheLink() {
        try (Arena arena = Arena.ofConfined(); SharedSlots slots = new SharedSlots(folder, link, 2)) {
            SharedMaps maps = new SharedMaps();
            WireFormat.Encoded e = message(1 << 20, arena);
            slots.write(0, e);
            SharedMaps.Mapping first = maps.slot(slots.file(0).toString(), link, 0, e.messageBytes());
            first.retain(); // a message decoded in place
            WireFormat.Encoded big = message(3 << 20, arena);
            slots.write(1, big); // slot 0 is held: the transmitter writes the larger message elsewhere
            slots.slot(0, big.messageBytes()); // and grows slot 0 later, once released
            SharedMaps.Mapping second = maps.slot(slots.file(0).toString(), link, 0, big.messageBytes());
            assertTrue(second != first);
            assertEquals(-1, e.toSegment(arena).mismatch(first.map().asSlice(0, e.messageBytes())),
                    "the held mapping still reads the message it holds");
            maps.close();
            assertTrue(first.map().scope().isAlive(), "closing the link leaves a held mapping open");
            assertTrue(!second.map().scope().isAlive(), "an unheld mapping closes with the link");
            first.release();
            assertTrue(!first.map().scope().isAlive(), "the last release closes it");
        }
    }

    @Test
    void slotsAreTakenWhileFreeAndReleasedOnlyForTheMessageTheyHold() {
        try (SharedSlots slots = new SharedSlots(folder, link, 3)) {
            assertEquals(0, slots.take(1));
            assertEquals(1, slots.take(2));
            assertEquals(2, slots.take(3));
            assertEquals(-1, slots.take(4), "every slot held");
            assertTrue(!slots.anyFree(3));
            assertEquals(-1, slots.take(4, 2), "under a limit of 2 too");
            assertTrue(!slots.release(1, 3), "slot 1 holds message 2, not 3");
            assertTrue(!slots.release(3, 4), "no slot 3");
            assertTrue(!slots.release(-1, 4));
            assertTrue(slots.release(1, 2));
            assertTrue(!slots.release(1, 2), "released twice");
            assertEquals(1, slots.take(4));
            assertTrue(slots.release(0, 1));
            assertTrue(slots.release(2, 3));
            assertEquals(0, slots.take(5), "the lowest free slot first: few files for a prompt receiver");
        }
    }

    @Test
    void anythingButThisLinksPrivateSlotIsRefused() throws Exception {
        try (Arena arena = Arena.ofConfined(); SharedSlots slots = new SharedSlots(folder, link, 2);
             SharedMaps maps = new SharedMaps()) {
            WireFormat.Encoded e = message(1 << 20, arena);
            slots.write(0, e);
            String name = slots.file(0).toString();
            // another link's id, another slot, a relative or non-normal path, a file longer than the slot
            assertRefused(maps, name, link + 1, 0, 100, "is not slot");
            assertRefused(maps, name, link, 1, 100, "is not slot");
            assertRefused(maps, slots.file(0).getFileName().toString(), link, 0, 100, "is not slot");
            assertRefused(maps, folder + "/../" + folder.getFileName() + "/" + slots.file(0).getFileName(), link, 0,
                    100, "is not slot");
            assertRefused(maps, name, link, 0, 1L << 40, "holds");
            assertRefused(maps, "\0", link, 0, 100, "");
            // a file of the right name outside a jkompute private folder
            Path elsewhere = Files.createTempDirectory("jkompute-shared-test");
            Path copy = elsewhere.resolve(slots.file(0).getFileName());
            Files.write(copy, new byte[1 << 20]);
            assertRefused(maps, copy.toString(), link, 0, 100, "not in a jkompute private folder");
            // a folder that looks like one but is readable by others; named for pid 1, which is alive, so that no
            // other test JVM's start removes it as a dead process's folder meanwhile (as one did for a made-up pid)
            Path lookalike = Path.of(System.getProperty("java.io.tmpdir")).resolve(AeronTransport.PREFIX + "1");
            Files.createDirectories(lookalike);
            Files.setPosixFilePermissions(lookalike, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path open = lookalike.resolve(slots.file(0).getFileName());
            Files.write(open, new byte[1 << 20]);
            assertRefused(maps, open.toString(), link, 0, 100, "private (0700)");
            // a symbolic link in a private folder to a file elsewhere
            Files.setPosixFilePermissions(lookalike, PosixFilePermissions.fromString("rwx------"));
            Files.delete(open);
            Files.createSymbolicLink(open, copy);
            assertRefused(maps, open.toString(), link, 0, 100, "not a regular file");
            Files.delete(open);
            Files.delete(lookalike);
            Files.delete(copy);
            Files.delete(elsewhere);
            // the genuine slot still maps
            assertEquals(-1, e.toSegment(arena).mismatch(maps.slot(name, link, 0, e.messageBytes())
                    .map().asSlice(0, e.messageBytes())));
        }
    }

    private static void assertRefused(SharedMaps maps, String name, long link, int slot, long bytes, String why) {
        WireFormat.FormatException x = assertThrows(WireFormat.FormatException.class,
                () -> maps.slot(name, link, slot, bytes), name);
        assertTrue(x.getMessage().contains(why), x.getMessage());
    }
}
