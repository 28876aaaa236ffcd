package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jkompute.cuda.internal.Driver;
import org.junit.jupiter.api.Test;

/** On a machine without the NVIDIA driver (CI), every entry point fails with the same clear error. */
class NoDriverTest {

    @Test
    void everyEntryPointSaysTheDriverIsMissingAndWhatToInstall() {
        assumeTrue(Driver.unavailableReason() != null, "this machine has a CUDA driver; the no-driver path cannot be observed");
        assertFalse(Cuda.isAvailable());
        assertTrue(Cuda.unavailableReason().contains("libcuda.so.1 was not found"), Cuda.unavailableReason());
        var e = assertThrows(CudaUnavailableException.class, Cuda::deviceCount);
        assertTrue(e.getMessage().contains("Install the NVIDIA driver"), e.getMessage());
        assertEquals(CudaUnavailableException.DRIVER_NOT_FOUND, e.error());
        assertThrows(CudaUnavailableException.class, () -> Cuda.setDevice(0));
        assertThrows(CudaUnavailableException.class, Stream::create);
        assertThrows(CudaUnavailableException.class, Event::create);
        assertThrows(CudaUnavailableException.class, () -> DeviceMemory.allocate(16));
        assertThrows(CudaUnavailableException.class, () -> PinnedMemory.allocate(16));
        assertThrows(CudaUnavailableException.class, () -> GpuArray.toGpu(new float[] {1, 2}));
        assertThrows(CudaUnavailableException.class, () -> CudaModule.loadPtx(".version 8.0"));
        assertThrows(CudaUnavailableException.class, () -> DeviceArray.int32(new int[4]).allocate());
        // a second call gives the same answer, not a link error
        assertThrows(CudaUnavailableException.class, Cuda::deviceCount);
    }
}
