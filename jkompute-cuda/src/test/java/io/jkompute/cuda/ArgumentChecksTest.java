package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jkompute.cuda.internal.DLPack;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** Checks that run before any driver call, so they hold with or without a GPU. */
class ArgumentChecksTest {

    @Test
    void dim3RejectsZeroAndComputesBlockCounts() {
        assertThrows(IllegalArgumentException.class, () -> Dim3.of(0));
        assertThrows(IllegalArgumentException.class, () -> Dim3.of(1, -1));
        assertEquals(Dim3.of(4), Dim3.blocksFor(1000, 256));
        assertEquals(Dim3.of(1), Dim3.blocksFor(1, 256));
        assertEquals(Dim3.of(3), Dim3.blocksFor(768, 256));
        assertEquals(256L * 4 * 2, Dim3.of(256, 4, 2).count());
    }

    @Test
    void slicesRejectAZeroStep() {
        assertThrows(IllegalArgumentException.class, () -> Slice.range(0, 4, 0));
        assertEquals("::-1", Slice.every(-1).toString());
        assertEquals("1:5:2", Slice.range(1, 5, 2).toString());
        assertEquals(":3", Slice.to(3).toString());
        assertEquals("-1", Slice.at(-1).toString());
    }

    @Test
    void toGpuChecksTheCarrierAndSizeBeforeAllocating() {
        var e = assertThrows(IllegalArgumentException.class, () -> GpuArray.toGpu(new float[4], DType.INT32));
        assertEquals("int32 is carried by int[], not float[]", e.getMessage());
        var odd = assertThrows(IllegalArgumentException.class, () -> GpuArray.toGpu(new float[3], DType.COMPLEX64));
        assertEquals("complex64 needs an even number of float32 values (real, imaginary pairs)", odd.getMessage());
        var size = assertThrows(IllegalArgumentException.class,
                () -> GpuArray.toGpu(MemorySegment.ofArray(new byte[10]), DType.FLOAT32, 3));
        assertEquals("host data has 10 bytes but float32 [3] needs 12", size.getMessage());
        assertThrows(IllegalArgumentException.class, () -> GpuArray.toGpu("not an array", DType.INT8));
    }

    @Test
    void deviceArrayChecksItsHostSide() {
        assertThrows(IllegalArgumentException.class, () -> DeviceArray.of(DType.FLOAT32, new int[3]));
        assertThrows(IllegalArgumentException.class, () -> DeviceArray.of(DType.INT32, MemorySegment.ofArray(new byte[6])));
        assertThrows(IllegalArgumentException.class, () -> DeviceArray.of(DType.INT32, MemorySegment.ofArray(new byte[0])));
        DeviceArray da = DeviceArray.complex128(new double[8]);
        assertEquals(4, da.size());
        assertEquals(0, da.deviceData());
        var e = assertThrows(IllegalStateException.class, da::toDevice);
        assertEquals("device side not allocated: call allocate() first", e.getMessage());
        assertThrows(IllegalStateException.class, da::toHost);
        assertEquals(CudaError.SUCCESS, da.lastStatus());
    }

    @Test
    void elementEncodingPerDtype() {
        assertEquals(Float.floatToFloat16(1.5f), GpuArray.element(DType.FLOAT16, 1.5, 0).get(ValueLayout.JAVA_SHORT_UNALIGNED, 0));
        assertEquals(-2.25f, GpuArray.element(DType.FLOAT32, -2.25, 0).get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0));
        MemorySegment c = GpuArray.element(DType.COMPLEX128, 1.0, -3.0);
        assertEquals(16, c.byteSize());
        assertArrayEquals(new double[] {1.0, -3.0}, c.toArray(ValueLayout.JAVA_DOUBLE_UNALIGNED));
        assertEquals(-7, GpuArray.element(DType.INT32, -7.0, 0).get(ValueLayout.JAVA_INT_UNALIGNED, 0));
        assertEquals((short) 0xFFFF, GpuArray.element(DType.UINT16, 65535L).get(ValueLayout.JAVA_SHORT_UNALIGNED, 0));
        var e = assertThrows(IllegalArgumentException.class, () -> GpuArray.element(DType.INT64, 2.5, 0));
        assertEquals("2.5 is not an integer; int64 needs fill(long)", e.getMessage());
    }

    @Test
    void dlpackImportRejectsHostTensorsAndOddTypesBeforeTouchingCuda() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cpu = DLPack.write(arena, 0x1000, DLPack.KDL_CPU, 0, 2, 32, new long[] {4}, new long[] {1}, 0, MemorySegment.NULL);
            var e = assertThrows(IllegalArgumentException.class, () -> GpuArray.fromDlpack(cpu));
            assertEquals("DLPack tensor is on device type 1, not CUDA (2) or CUDA managed (13); copy it to a CUDA device first", e.getMessage());
            MemorySegment fp8 = DLPack.write(arena, 0x1000, DLPack.KDL_CUDA, 0, 2, 8, new long[] {4}, new long[] {1}, 0, MemorySegment.NULL);
            assertThrows(IllegalArgumentException.class, () -> GpuArray.fromDlpack(fp8));
            MemorySegment misaligned = DLPack.write(arena, 0x1000, DLPack.KDL_CUDA, 0, 2, 32, new long[] {4}, new long[] {1}, 2, MemorySegment.NULL);
            assertThrows(IllegalArgumentException.class, () -> GpuArray.fromDlpack(misaligned));
            assertThrows(IllegalArgumentException.class, () -> GpuArray.fromDlpack(MemorySegment.NULL));
        }
    }

    @Test
    void cudaErrorValues() {
        assertEquals(CudaError.SUCCESS, CudaError.of(0));
        assertEquals(true, CudaError.SUCCESS.isSuccess());
        assertEquals(true, CudaError.of(700).isSticky());
        assertEquals(false, CudaError.of(2).isSticky());
        assertEquals(2, CudaError.of(2).code());
    }

    @Test
    void externalMemoryImportChecksItsArguments() {
        var fd = assertThrows(IllegalArgumentException.class, () -> ImportedMemory.importOpaqueFd(-1, 4096, false));
        assertEquals("invalid file descriptor -1", fd.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ImportedMemory.importOpaqueFd(3, 0, false));
    }
}
