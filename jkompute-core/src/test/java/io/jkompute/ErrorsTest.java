package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every misuse gets a clear exception of the right type; nothing crashes, nothing computes a wrong answer. */
class ErrorsTest extends GpuTestBase {

    @Test
    void closedObjects() {
        Tensor t = mgr.tensor(new float[] {1, 2});
        Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(SequenceTest.ADD_ONE));
        Sequence s = mgr.sequence().record(new OpAlgoDispatch(algo));
        t.close();
        t.close();   // idempotent
        assertTrue(t.isClosed());
        String closed = t + " is closed";
        assertEquals(closed, assertThrows(IllegalStateException.class, t::toFloatArray).getMessage());
        assertEquals(closed, assertThrows(IllegalStateException.class, t::data).getMessage());
        assertEquals(closed, assertThrows(IllegalStateException.class, () -> t.setData(new float[2])).getMessage());
        assertEquals(closed, assertThrows(IllegalStateException.class, () -> mgr.sequence().record(new OpSyncDevice(t)))
                .getMessage());
        var e = assertThrows(IllegalStateException.class, s::eval);
        assertEquals(s + " uses " + t + ", which is closed", e.getMessage());
        algo.close();
        assertThrows(IllegalStateException.class, () -> new OpAlgoDispatch(algo));
        s.close();
        assertEquals(s + " is closed", assertThrows(IllegalStateException.class, s::eval).getMessage());
    }

    @Test
    void closedManager() {
        Manager m = new Manager();
        Tensor t = m.tensor(new float[] {1});
        m.close();
        m.close();
        assertTrue(t.isClosed());
        assertEquals("the Manager is closed", assertThrows(IllegalStateException.class, () -> m.tensor(new float[1])).getMessage());
        assertEquals("the Manager is closed", assertThrows(IllegalStateException.class, m::sequence).getMessage());
        assertThrows(IllegalStateException.class, t::toFloatArray);
    }

    @Test
    void sizeMismatches() {
        try (Tensor t = mgr.tensor(new float[3])) {
            var e = assertThrows(IllegalArgumentException.class, () -> t.setData(new float[4]));
            assertEquals("setData: 4 elements given, " + t + " holds 3", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> t.setData(MemorySegment.ofArray(new byte[11])));
            assertEquals("setData: 11 bytes given, " + t + " holds 12 bytes", e.getMessage());
            e = assertThrows(IllegalArgumentException.class,
                    () -> mgr.tensor(DataType.INT32, MemorySegment.ofArray(new byte[10]), new long[] {3}, MemoryType.DEVICE));
            assertEquals("tensor data has 10 bytes, but int32[3] needs 12", e.getMessage());
            try (Tensor u = mgr.tensor(new float[4])) {
                e = assertThrows(IllegalArgumentException.class, () -> new OpCopy(t, u));
                assertEquals("OpCopy: " + t + " has 3 elements, " + u + " has 4", e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> OpCopy.range(t, 2, u, 0, 2));
                assertEquals("OpCopy source: range [2, 4) is outside " + t + " of 3 elements", e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> new OpSyncDevice(t, -1, 1));
                assertTrue(e.getMessage().startsWith("OpSyncDevice: range [-1, 0) is outside"), e.getMessage());
            }
            e = assertThrows(IllegalArgumentException.class, () -> mgr.tensor(DataType.FLOAT32, new long[] {0}, MemoryType.HOST));
            assertEquals("tensor dimensions must be positive, got [0]", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> mgr.tensor(DataType.FLOAT32, new long[0], MemoryType.HOST));
            assertEquals("a tensor needs a shape of at least one dimension", e.getMessage());
        }
    }

    @Test
    void wrongDataTypes() {
        try (Tensor f = mgr.tensor(new float[2]); Tensor i = mgr.tensor(new int[2])) {
            var e = assertThrows(IllegalArgumentException.class, f::toIntArray);
            assertEquals("toIntArray needs [int32, uint32] data, but " + f + " holds float32", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> i.setData(new float[2]));
            assertEquals("setData(float[]) needs float32 data, but " + i + " holds int32", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> new OpCopy(f, i));
            assertEquals("OpCopy: " + f + " and " + i + " have different data types", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> new OpMult(List.of(f, f, i), mgr.algorithm()));
            assertTrue(e.getMessage().startsWith("OpMult: all three tensors must have one type and size"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class,
                    () -> mgr.tensor(DataType.CUSTOM, new long[] {2}, MemoryType.HOST));
            assertTrue(e.getMessage().contains("customTensor"), e.getMessage());
        }
    }

    @Test
    void emptyLists() {
        var e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(), Shader.compile(COPY_SHADER)));
        assertEquals("an algorithm needs at least one tensor or image to bind", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new OpSyncDevice(List.of()));
        assertEquals("OpSyncDevice needs at least one tensor or image", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new OpSyncLocal());
        assertEquals("OpSyncLocal needs at least one tensor or image", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new OpCopy(List.of()));
        assertEquals("OpCopy needs at least one tensor or image", e.getMessage());
        try (Tensor t = mgr.tensor(new float[1])) {
            e = assertThrows(IllegalArgumentException.class, () -> new OpCopy(List.of(t)));
            assertEquals("OpCopy needs a source and at least one target, got 1 object(s)", e.getMessage());
        }
        e = assertThrows(IllegalArgumentException.class, () -> new OpMult(List.of(), mgr.algorithm()));
        assertEquals("OpMult expects 3 tensors (lhs, rhs, out), got 0", e.getMessage());
    }

    @Test
    void pushConstantSizeMismatch() {
        try (Tensor t = mgr.tensor(new float[1]);
                Algorithm a = mgr.algorithm(List.of(t), Shader.compile(COPY_SHADER.replace("b[i] = a[i];", "")),
                        Workgroup.of(1), Constants.NONE, Constants.floats(1, 2))) {
            var e = assertThrows(IllegalArgumentException.class, () -> new OpAlgoDispatch(a, Constants.floats(1)));
            assertEquals("push constants of 4 bytes given, but " + a + " was built with 8 bytes of push constants", e.getMessage());
        }
        try (Tensor t = mgr.tensor(new float[1])) {
            var e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(t), Shader.compile(COPY_SHADER),
                    Workgroup.of(1), Constants.NONE, Constants.struct(new byte[6])));
            assertEquals("push constants must be a multiple of 4 bytes, got 6", e.getMessage());
            int limit = mgr.deviceProperties().limits().maxPushConstantsSize();
            e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(t), Shader.compile(COPY_SHADER),
                    Workgroup.of(1), Constants.NONE, Constants.struct(new byte[limit + 4])));
            assertEquals("push constants of " + (limit + 4) + " bytes exceed the device's limit of " + limit, e.getMessage());
        }
    }

    @Test
    void indicesOutOfRange() {
        var e = assertThrows(IllegalArgumentException.class, () -> new Manager(99));
        assertTrue(e.getMessage().startsWith("device index 99 is out of range: there is 1 Vulkan device"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> mgr.sequence(5));
        assertEquals("queue index 5 is out of range: the Manager has 1 queue(s); give more family indices to the Manager"
                + " for more queues", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Manager(0, new int[] {42}, List.of()));
        assertTrue(e.getMessage().startsWith("queue family 42 does not exist"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Manager(0, new int[0], List.of("VK_NOT_AN_EXTENSION")));
        assertTrue(e.getMessage().endsWith("does not support extension(s) [VK_NOT_AN_EXTENSION]"), e.getMessage());
        try (Tensor t = mgr.tensor(new float[1]); Tensor u = mgr.tensor(new float[1])) {
            int max = mgr.deviceProperties().limits().maxComputeWorkGroupCount()[1];
            e = assertThrows(IllegalArgumentException.class,
                    () -> mgr.algorithm(List.of(t, u), Shader.compile(COPY_SHADER), Workgroup.of(1, max + 1)));
            assertTrue(e.getMessage().startsWith("workgroup count Workgroup[x=1, y=" + (max + 1)), e.getMessage());
        }
    }

    @Test
    void storageHasNoHostView() {
        try (Tensor t = mgr.tensor(DataType.FLOAT32, new long[] {2}, MemoryType.STORAGE)) {
            var e = assertThrows(IllegalStateException.class, t::toFloatArray);
            assertTrue(e.getMessage().endsWith("is STORAGE memory and has no host view; copy it into a DEVICE or HOST"
                    + " tensor with OpCopy to read it"), e.getMessage());
        }
    }

    @Test
    void objectsOfAnotherManager() {
        try (Manager other = new Manager(); Tensor t = other.tensor(new float[1])) {
            var e = assertThrows(IllegalArgumentException.class, () -> mgr.sequence().record(new OpSyncDevice(t)));
            assertEquals(t + " belongs to another Manager", e.getMessage());
        }
    }

    @Test
    void badSpirv() {
        try (Tensor t = mgr.tensor(new float[1])) {
            var e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(t), new byte[] {1, 2, 3}));
            assertTrue(e.getMessage().startsWith("SPIR-V must be a whole number of 32-bit words"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> mgr.algorithm(List.of(t), new byte[24]));
            assertTrue(e.getMessage().startsWith("not SPIR-V: magic number 0x00000000"), e.getMessage());
        }
    }
}
