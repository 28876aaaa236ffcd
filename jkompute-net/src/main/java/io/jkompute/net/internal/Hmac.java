package io.jkompute.net.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * HMAC-SHA256 over Agrona buffers (heap, direct or Aeron's mapped log buffers) without copying. One instance per
 * thread: {@link Mac} is not thread-safe.
 */
public final class Hmac {
    public static final int BYTES = 32;

    private final Mac mac;
    private final byte[] out = new byte[BYTES];
    private final byte[] given = new byte[BYTES];
    private byte[] scratch = new byte[0];

    public Hmac(byte[] key) {
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available: " + e, e);
        }
    }

    /** A key derived from {@code key} for one purpose: HMAC(key, label || parts). */
    public static byte[] derive(byte[] key, String label, long... parts) {
        Hmac h = new Hmac(key);
        h.mac.update(label.getBytes(StandardCharsets.UTF_8));
        for (long p : parts) {
            for (int i = 0; i < 8; i++) {
                h.mac.update((byte) (p >>> (8 * i)));
            }
        }
        return h.mac.doFinal();
    }

    public Hmac update(DirectBuffer b, int offset, int length) {
        if (length <= 0) {
            return this;
        }
        byte[] array = b.byteArray();
        if (array != null) {
            mac.update(array, b.wrapAdjustment() + offset, length);
            return this;
        }
        ByteBuffer bb = b.byteBuffer();
        if (bb != null) {
            ByteBuffer d = bb.duplicate();
            int at = b.wrapAdjustment() + offset;
            d.limit(at + length).position(at);
            mac.update(d);
            return this;
        }
        if (scratch.length < Math.min(length, 64 * 1024)) {
            scratch = new byte[Math.min(Math.max(length, 4096), 64 * 1024)];
        }
        for (int done = 0; done < length; ) {
            int n = Math.min(scratch.length, length - done);
            b.getBytes(offset + done, scratch, 0, n);
            mac.update(scratch, 0, n);
            done += n;
        }
        return this;
    }

    public Hmac update(byte[] bytes, int offset, int length) {
        mac.update(bytes, offset, length);
        return this;
    }

    public Hmac update(ByteBuffer bytes) {
        mac.update(bytes);
        return this;
    }

    /** Writes the MAC of everything updated so far at {@code at} of {@code dst} and resets. */
    public void finish(MutableDirectBuffer dst, int at) {
        try {
            mac.doFinal(out, 0);
        } catch (javax.crypto.ShortBufferException e) {
            throw new IllegalStateException(e);
        }
        dst.putBytes(at, out);
    }

    /** The MAC of everything updated so far (a new array) and resets. */
    public byte[] finish() {
        return mac.doFinal();
    }

    /** Whether the MAC of everything updated so far equals the one at {@code at} of {@code b} (constant time); resets. */
    public boolean matches(DirectBuffer b, int at) {
        try {
            mac.doFinal(out, 0);
        } catch (javax.crypto.ShortBufferException e) {
            throw new IllegalStateException(e);
        }
        b.getBytes(at, given);
        return MessageDigest.isEqual(out, given);
    }
}
