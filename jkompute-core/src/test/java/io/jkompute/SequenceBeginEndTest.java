package io.jkompute;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Kompute's optional explicit markers: {@code seq.begin(); seq.record(...); seq.end(); seq.eval()}. */
class SequenceBeginEndTest extends GpuTestBase {

    @Test
    void beginRecordEndEvalRunsWhatWasRecorded() {
        try (Tensor t = mgr.tensor(new float[] {0, 10}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(SequenceTest.ADD_ONE));
                Sequence s = mgr.sequence()) {
            assertSame(s, s.begin());
            assertTrue(s.isRecording());
            s.record(new OpAlgoDispatch(algo)).record(new OpAlgoDispatch(algo));
            assertSame(s, s.end());
            assertFalse(s.isRecording());
            s.eval();
            assertArrayEquals(new float[] {2, 12}, t.toFloatArray());
            s.eval();   // the ended recording is reused
            assertArrayEquals(new float[] {4, 14}, t.toFloatArray());
            assertEquals(2, s.operations().size());
        }
    }

    @Test
    void beginWhileRecordingKeepsTheRecordingAndEvalBetweenBeginAndEndEndsIt() {
        try (Tensor t = mgr.tensor(new float[] {0}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(SequenceTest.ADD_ONE));
                Sequence s = mgr.sequence()) {
            s.begin().record(new OpAlgoDispatch(algo));
            s.begin();   // already recording: nothing happens, A stays
            s.record(new OpAlgoDispatch(algo));
            s.eval();    // no end(): eval finishes the recording
            assertEquals(2f, t.toFloatArray()[0]);
            assertEquals(2, s.operations().size());
            s.end();     // not recording: only a warning
            s.eval();
            assertEquals(4f, t.toFloatArray()[0]);
        }
    }

    @Test
    void beginAfterAnEvalStartsAfreshAsRecordDoes() {
        try (Tensor t = mgr.tensor(new float[] {0}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(SequenceTest.ADD_ONE));
                Sequence s = mgr.sequence()) {
            s.begin().record(new OpAlgoDispatch(algo)).record(new OpAlgoDispatch(algo)).end().eval();
            assertEquals(2f, t.toFloatArray()[0]);
            s.begin().record(new OpAlgoDispatch(algo)).end().eval();
            assertEquals(3f, t.toFloatArray()[0]);
            assertEquals(1, s.operations().size());
        }
    }

    @Test
    void recordAfterEndBeforeEvalReopensTheRecordingAndKeepsItsOperations() {
        try (Tensor t = mgr.tensor(new float[] {0}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(SequenceTest.ADD_ONE));
                Sequence s = mgr.sequence()) {
            s.begin().record(new OpAlgoDispatch(algo)).end();
            s.record(new OpAlgoDispatch(algo));
            assertTrue(s.isRecording());
            s.eval();
            assertEquals(2f, t.toFloatArray()[0]);
            assertEquals(2, s.operations().size());
        }
    }

    @Test
    void beginAndEndWhileRunningThrow() {
        try (Tensor t = mgr.tensor(new float[] {0}, MemoryType.HOST);
                Algorithm algo = mgr.algorithm(List.of(t), Shader.compile(SequenceTest.ADD_ONE));
                Sequence s = mgr.sequence()) {
            s.record(new OpAlgoDispatch(algo)).evalAsync();
            var b = assertThrows(IllegalStateException.class, s::begin);
            assertEquals("begin on " + s + " while it is running: call evalAwait() first", b.getMessage());
            var e = assertThrows(IllegalStateException.class, s::end);
            assertEquals("end on " + s + " while it is running: call evalAwait() first", e.getMessage());
            s.evalAwait();
            assertEquals(1f, t.toFloatArray()[0]);
            assertFalse(s.isRecording());
        }
    }

    @Test
    void beginAndEndOnAClosedSequenceThrow() {
        Sequence s = mgr.sequence();
        s.close();
        assertEquals(s + " is closed", assertThrows(IllegalStateException.class, s::begin).getMessage());
        assertEquals(s + " is closed", assertThrows(IllegalStateException.class, s::end).getMessage());
    }

    @Test
    void anEmptyBeginEndEvaluatesNothing() {
        try (Sequence s = mgr.sequence()) {
            s.begin().end().eval();
            assertEquals(0, s.operations().size());
            assertFalse(s.isRunning());
        }
    }
}
