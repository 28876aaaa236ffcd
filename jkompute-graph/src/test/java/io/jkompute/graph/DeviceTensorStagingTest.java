package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jkompute.Manager;
import io.jkompute.OpSyncDevice;
import io.jkompute.Sequence;
import io.jkompute.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * After an upload the staging slice holds a device tensor's contents, so reading it on the host (a link sending it,
 * VerifyEqual) reads no copy back; once the GPU may have written the tensor, the host reads it back again.
 */
class DeviceTensorStagingTest {
    @BeforeEach
    void vulkan() {
        Assumptions.assumeTrue(AppsTest.vulkanAvailable(), "no Vulkan device (install mesa-vulkan-drivers)");
    }

    private static MemorySegment floats(float... v) {
        return MemorySegment.ofArray(v);
    }

    /** Writes {@code v} to the device through the core tensor's own staging, then scribbles over the staging. */
    private static void writeOnDevice(Manager mgr, Tensor core, float... v) {
        MemorySegment.copy(floats(v), 0, core.data(), 0, 4L * v.length);
        try (Sequence s = mgr.sequence().record(new OpSyncDevice(core))) {
            s.eval();
        }
        core.data().fill((byte) 0);
    }

    @Test
    void anUploadedTensorIsReadFromItsStagingWithoutAReadBack() {
        try (Manager mgr = new Manager(); Tensor t = mgr.tensor(new float[4])) {
            DeviceTensor dt = DeviceTensor.of(t);
            dt.upload(floats(5f, 6f, 7f, 8f));
            assertSame(Sequence.Point.REACHED, dt.prefetchToHost());
            assertArrayEquals(new float[] {5f, 6f, 7f, 8f}, dt.hostView().toArray(ValueLayout.JAVA_FLOAT));
            assertArrayEquals(new float[] {5f, 6f, 7f, 8f},
                    dt.toHost(java.lang.foreign.Arena.ofAuto()).toArray(ValueLayout.JAVA_FLOAT));
        }
    }

    @Test
    void takingTheCoreTensorMakesTheNextReadGoToTheDevice() {
        try (Manager mgr = new Manager(); Tensor t = mgr.tensor(new float[4])) {
            DeviceTensor dt = DeviceTensor.of(t);
            dt.upload(floats(1f, 2f, 3f, 4f));
            dt.hostView(); // settles the upload
            writeOnDevice(mgr, dt.tensor(), 10f, 20f, 30f, 40f);
            assertNotSame(Sequence.Point.REACHED, dt.prefetchToHost());
            assertArrayEquals(new float[] {10f, 20f, 30f, 40f}, dt.hostView().toArray(ValueLayout.JAVA_FLOAT));
        }
    }

    @Test
    void aRecordedWriterMakesTheNextReadGoToTheDevice() {
        try (Manager mgr = new Manager(); Tensor t = mgr.tensor(new float[4])) {
            DeviceTensor dt = DeviceTensor.of(t);
            dt.upload(floats(1f, 2f, 3f, 4f));
            dt.hostView();
            // a producer that kept its own reference to the core tensor says so with readyAfter
            writeOnDevice(mgr, t, -1f, -2f, -3f, -4f);
            try (Sequence done = mgr.sequence()) {
                dt.readyAfter(done.point());
            }
            assertArrayEquals(new float[] {-1f, -2f, -3f, -4f}, dt.hostView().toArray(ValueLayout.JAVA_FLOAT));
        }
    }

    @Test
    void aNewUploadIsWhatTheHostReads() {
        try (Manager mgr = new Manager(); Tensor t = mgr.tensor(new float[4])) {
            DeviceTensor dt = DeviceTensor.of(t);
            dt.upload(floats(1f, 2f, 3f, 4f));
            writeOnDevice(mgr, dt.tensor(), 9f, 9f, 9f, 9f);
            dt.upload(floats(4f, 3f, 2f, 1f));
            assertSame(Sequence.Point.REACHED, dt.prefetchToHost());
            assertArrayEquals(new float[] {4f, 3f, 2f, 1f}, dt.hostView().toArray(ValueLayout.JAVA_FLOAT));
        }
    }
}
