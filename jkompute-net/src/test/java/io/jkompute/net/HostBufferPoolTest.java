package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** The receiver's pool: buffers come back when their message's "arena" closes, within its limits, and are freed at the end. */
class HostBufferPoolTest {
    @Test
    void aReturnedBufferServesTheNextMessageOfUpToItsSize() {
        try (HostBufferPool pool = new HostBufferPool(2, 64L << 20)) {
            HostBufferPool.Buffer a = pool.take(3 << 20);
            MemorySegment s = a.slice(3 << 20);
            assertEquals(3 << 20, s.byteSize());
            assertEquals(0, s.address() % WireFormat.ALIGN);
            a.close();
            a.close(); // twice: no effect
            assertSame(a, pool.take(2 << 20), "a free buffer up to twice the size is reused");
            assertNotSame(a, pool.take(1 << 20), "a buffer is handed out once");
            a.close();
            assertNotSame(a, pool.take(1 << 20), "not one more than twice as large");
            assertNotSame(a, pool.take(5 << 20), "not one too small");
        }
    }

    @Test
    void atMostKeepBuffersAndBytesStayFreeAndCloseFreesThem() {
        HostBufferPool pool = new HostBufferPool(2, 8L << 20);
        HostBufferPool.Buffer a = pool.take(4 << 20);
        HostBufferPool.Buffer b = pool.take(4 << 20);
        HostBufferPool.Buffer c = pool.take(4 << 20);
        a.close();
        b.close();
        c.close(); // over 8 MiB kept: the oldest (a) is freed
        assertFalse(a.scope().isAlive());
        assertTrue(b.scope().isAlive());
        assertTrue(c.scope().isAlive());
        HostBufferPool.Buffer d = pool.take(4 << 20);
        pool.close();
        assertFalse(b.scope().isAlive() && c.scope().isAlive(), "free buffers are freed when the pool closes");
        MemorySegment held = d.slice(16);
        held.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 1); // a message still holds it
        d.close(); // its release after the pool closed frees it
        assertFalse(d.scope().isAlive());
        assertThrows(IllegalStateException.class, () -> held.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
        assertThrows(UnsupportedOperationException.class, () -> d.allocate(8, 8));
    }

    @Test
    void smallMessagesTakeABufferOfTheirPowerOfTwoClassAndItComesBackForTheNextOne() {
        try (HostBufferPool pool = new HostBufferPool(2, 64L << 20)) {
            HostBufferPool.Buffer a = pool.take(192);
            assertEquals(192, a.slice(192).byteSize());
            assertEquals(HostBufferPool.SMALL_MIN, a.slice(HostBufferPool.SMALL_MIN).byteSize(), "a 1 KiB buffer");
            assertThrows(IndexOutOfBoundsException.class, () -> a.slice(HostBufferPool.SMALL_MIN + 1));
            assertEquals(0, a.slice(8).address() % WireFormat.ALIGN);
            HostBufferPool.Buffer b = pool.take(1000);
            assertNotSame(a, b, "a buffer is handed out once");
            a.close();
            b.close();
            assertSame(b, pool.take(24), "the last one given back is taken first");
            assertSame(a, pool.take(HostBufferPool.SMALL_MIN));
            HostBufferPool.Buffer c = pool.take(HostBufferPool.SMALL_MIN + 1);
            assertEquals(2 * HostBufferPool.SMALL_MIN, c.slice(2 * HostBufferPool.SMALL_MIN).byteSize());
            HostBufferPool.Buffer top = pool.take(HostBufferPool.SMALL_MAX);
            assertEquals(HostBufferPool.SMALL_MAX, top.slice(HostBufferPool.SMALL_MAX).byteSize());
            assertThrows(IndexOutOfBoundsException.class, () -> top.slice(HostBufferPool.SMALL_MAX + 1));
            top.close();
            assertNotSame(top, pool.take(HostBufferPool.SMALL_MAX + 1), "a larger message is not small");
        }
    }

    @Test
    void atMostKeepSmallBuffersOfAClassStayFreeAndCloseFreesThem() {
        HostBufferPool pool = new HostBufferPool(2, 64L << 20);
        HostBufferPool.Buffer a = pool.take(4096);
        HostBufferPool.Buffer b = pool.take(4096);
        HostBufferPool.Buffer c = pool.take(4096);
        HostBufferPool.Buffer other = pool.take(8192);
        a.close();
        b.close();
        c.close(); // a third free buffer of the class: freed
        other.close(); // another class: kept
        assertTrue(a.scope().isAlive());
        assertTrue(b.scope().isAlive());
        assertFalse(c.scope().isAlive());
        assertTrue(other.scope().isAlive());
        HostBufferPool.Buffer held = pool.take(4096);
        assertSame(b, held);
        pool.close();
        assertFalse(a.scope().isAlive(), "free buffers are freed when the pool closes");
        assertFalse(other.scope().isAlive());
        assertTrue(held.scope().isAlive(), "a message still holds it");
        held.close();
        assertFalse(held.scope().isAlive(), "its release after the pool closed frees it");
    }
}
