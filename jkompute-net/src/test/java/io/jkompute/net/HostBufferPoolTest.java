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
}
