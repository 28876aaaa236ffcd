package io.jkompute.graph.std;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * Takes one message from {@code receiver0} and one from {@code receiver1} per tick and requires their first tensors
 * to be exactly equal (shape, element type, every byte); device tensors are read back to the host first.
 */
public class VerifyEqual extends CodeletAdapter {
    private Receiver in0;
    private Receiver in1;
    private long verified;

    @Override
    public void start() {
        in0 = receiver(param("receiver0"));
        in1 = receiver(param("receiver1"));
    }

    @Override
    public void tick() {
        GraphTensor t0 = firstTensor(in0);
        GraphTensor t1 = firstTensor(in1);
        if (!Arrays.equals(t0.shape(), t1.shape())) {
            throw new AssertionError("shapes differ: " + Arrays.toString(t0.shape()) + " vs " + Arrays.toString(t1.shape()));
        }
        if (t0.dataType() != t1.dataType()) {
            throw new AssertionError("element types differ: " + t0.dataType() + " vs " + t1.dataType());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = Tensors.dense(t0, arena);
            MemorySegment b = Tensors.dense(t1, arena);
            long at = a.mismatch(b);
            if (at >= 0) {
                long element = at / t0.dataType().byteSize();
                throw new AssertionError("tensors differ at element " + element + " (" + t0.storage() + " "
                        + Tensors.describe(t0, a, element) + " vs " + t1.storage() + " " + Tensors.describe(t1, b, element)
                        + ") at tick " + executionCount());
            }
        }
        verified++;
    }

    private GraphTensor firstTensor(Receiver rx) {
        Message m = rx.receive();
        if (m == null) {
            throw new IllegalStateException("no message in '" + rx.path() + "'");
        }
        List<GraphTensor> tensors = m.findAll(GraphTensor.class);
        if (tensors.isEmpty()) {
            throw new IllegalStateException("the message from '" + rx.path() + "' holds no tensor (it has " + m.names() + ")");
        }
        return tensors.get(0);
    }

    /** Message pairs verified so far. */
    public long verified() {
        return verified;
    }
}
