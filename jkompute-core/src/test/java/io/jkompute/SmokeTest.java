package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void multiplies() {
        try (Manager mgr = new Manager()) {
            Tensor a = mgr.tensor(new float[] {1, 2, 3});
            Tensor b = mgr.tensor(new float[] {4, 5, 6});
            Tensor out = mgr.tensor(new float[3]);
            mgr.sequence().eval(new OpSyncDevice(a, b), new OpMult(a, b, out, mgr.algorithm()), new OpSyncLocal(out));
            assertArrayEquals(new float[] {4, 10, 18}, out.toFloatArray());
        }
    }
}
