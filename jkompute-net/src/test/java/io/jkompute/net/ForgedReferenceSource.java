package io.jkompute.net;

import io.jkompute.DataType;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.IpcRegion;
import io.jkompute.graph.Message;
import io.jkompute.graph.StorageType;
import io.jkompute.graph.Transmitter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.Random;

/**
 * A genuine, authenticated sender whose device tensor names memory the receiver must refuse: mode "handle" a CUDA
 * IPC handle of random bytes (right format and GPU, no such allocation), mode "offset" a real pool block's handle
 * with a range far outside the block. The receiver must end the link with a protocol violation, not crash.
 */
public class ForgedReferenceSource extends CodeletAdapter {
    /** Made by a JavaCodelet, which sets its parameters from the app. */
    public ForgedReferenceSource() {
    }

    private Transmitter tx;
    private Allocator pool;
    private String mode;

    @Override
    public void start() {
        tx = transmitter(param("transmitter"));
        pool = allocator(param("allocator"));
        mode = param("mode");
    }

    @Override
    public void tick() {
        GraphTensor real = GraphTensor.allocate(pool, StorageType.DEVICE, DataType.UINT8, 1 << 20);
        IpcRegion r = real.ipcRegion().orElseThrow();
        byte[] handle = r.handle().clone();
        long offset = 0;
        if (mode.equals("handle")) {
            // version byte and GPU UUID kept (bytes 0..16), the 64-byte CUDA handle replaced by noise
            byte[] noise = new byte[64];
            new Random(42).nextBytes(noise);
            System.arraycopy(noise, 0, handle, 17, 64);
        } else {
            offset = 1L << 40;
        }
        IpcRegion forged = new IpcRegion(r.device(), handle, offset);
        tx.publish(Message.create().add("payload", new Forged(real, forged)));
    }

    /** The real tensor with another region. */
    private record Forged(GraphTensor real, IpcRegion region) implements GraphTensor {
        @Override
        public long[] shape() {
            return real.shape();
        }

        @Override
        public DataType dataType() {
            return real.dataType();
        }

        @Override
        public long[] strides() {
            return real.strides();
        }

        @Override
        public StorageType storage() {
            return StorageType.DEVICE;
        }

        @Override
        public MemorySegment toHost(Arena arena) {
            return real.toHost(arena);
        }

        @Override
        public Optional<IpcRegion> ipcRegion() {
            return Optional.of(region);
        }

        @Override
        public void close() {
            real.close();
        }
    }
}
