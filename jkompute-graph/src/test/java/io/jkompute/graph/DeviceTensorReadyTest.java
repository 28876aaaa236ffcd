package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jkompute.Manager;
import io.jkompute.OpSyncDevice;
import io.jkompute.Sequence;
import io.jkompute.Tensor;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A device tensor whose producer closed the sequence that wrote it (a kernel codelet's stop() at the end of a run,
 * its last output still queued downstream) is read like any other: the point reads as reached.
 */
class DeviceTensorReadyTest {
    @Test
    void outputOfAClosedProducerSequenceReadsBack() {
        Assumptions.assumeTrue(AppsTest.vulkanAvailable(), "no Vulkan device (install mesa-vulkan-drivers)");
        try (Manager mgr = new Manager();
             Tensor t = mgr.tensor(new float[] {1f, 2f, 3f, 4f})) {
            Sequence producer = mgr.sequence().record(new OpSyncDevice(t));
            producer.evalAsync();
            DeviceTensor dt = DeviceTensor.of(t);
            dt.readyAfter(producer.point());
            producer.close(); // drains the submission
            assertSame(Sequence.Point.REACHED, dt.ready());
            // before: the read-back's nextWaitsFor threw "Sequence#… is closed, so its timeline can no longer be
            // waited on"
            float[] back = dt.hostView().toArray(ValueLayout.JAVA_FLOAT);
            assertArrayEquals(new float[] {1f, 2f, 3f, 4f}, back);
        }
    }
}
