package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class ExportTest extends GpuTestBase {

    @Test
    void exportableTensorsWorkAndHandOutFileDescriptors() throws Throwable {
        Assumptions.assumeTrue(mgr.device().canExportMemory(), mgr.deviceProperties().name() + " cannot export memory");
        try (Tensor t = mgr.exportableTensor(DataType.FLOAT32, new long[] {2, 8}, MemoryType.DEVICE);
                Tensor probe = mgr.tensor(new float[16], MemoryType.HOST)) {
            assertTrue(t.isExportable());
            float[] v = new float[16];
            for (int i = 0; i < 16; i++) v[i] = i * 1.5f;
            t.setData(v);
            run(new OpSyncDevice(t), new OpCopy(t, probe));
            assertArrayEquals(v, probe.toFloatArray());
            ExternalMemory m = t.exportMemory();
            assertTrue(m.fd() > 2, "a real descriptor: " + m);
            assertEquals(64, m.byteSize());
            assertEquals(0, m.offset());
            assertTrue(m.allocationSize() >= 64);
            assertTrue(m.dedicated());
            MethodHandle close = Linker.nativeLinker().downcallHandle(Linker.nativeLinker().defaultLookup().find("close").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            assertEquals(0, (int) close.invokeExact(m.fd()));
        }
    }

    @Test
    void plainTensorsAreNotExportable() {
        try (Tensor t = mgr.tensor(new float[2])) {
            assertFalse(t.isExportable());
            var e = assertThrows(IllegalStateException.class, t::exportMemory);
            assertEquals(t + " was not made exportable: create it with Manager.exportableTensor", e.getMessage());
        }
        var e = assertThrows(IllegalArgumentException.class,
                () -> mgr.exportableTensor(DataType.FLOAT32, new long[] {2}, MemoryType.HOST));
        assertEquals("exportable tensors are DEVICE or STORAGE memory, got HOST", e.getMessage());
    }
}
