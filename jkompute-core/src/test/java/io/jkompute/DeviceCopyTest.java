package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The shader path of device-to-device OpCopy, forced on so it runs on lavapipe too. */
class DeviceCopyTest {
    @Test
    void shaderCopiesMatchTheSource() {
        String before = System.getProperty("jkompute.copy.shader");
        System.setProperty("jkompute.copy.shader", "always");
        try (Manager m = new Manager()) {
            Assumptions.assumeTrue(m.device().bufferDeviceAddress(), "no buffer device addresses on this device");
            int n = 100_003;
            float[] v = new float[n];
            for (int i = 0; i < n; i++) v[i] = i * 0.5f - 7;
            try (Tensor a = m.tensor(v); Tensor b = m.tensor(new float[n]); Tensor c = m.tensor(new float[n])) {
                assertTrue(m.deviceCopy().suits(a, 0, b, 0, 16L * 1000));
                assertFalse(m.deviceCopy().suits(a, 4, b, 0, 16L * 1000), "unaligned offsets take vkCmdCopyBuffer");
                try (Sequence s = m.sequence()) {
                    // whole copy (size not a multiple of 16: vkCmdCopyBuffer), aligned ranges (the shader), then back
                    s.eval(new OpSyncDevice(a), new OpCopy(a, b), OpCopy.range(a, 4, c, 8, 40_000), new OpSyncLocal(b, c));
                }
                assertArrayEquals(v, b.toFloatArray());
                float[] cv = c.toFloatArray();
                for (int i = 0; i < 40_000; i++) {
                    assertEquals(v[4 + i], cv[8 + i], "at " + i);
                }
                assertEquals(0f, cv[7]);
                assertEquals(0f, cv[40_008]);
            }
        } finally {
            if (before == null) System.clearProperty("jkompute.copy.shader"); else System.setProperty("jkompute.copy.shader", before);
        }
        assertEquals(0, io.jkompute.internal.VulkanInstance.validationErrors());
    }
}
