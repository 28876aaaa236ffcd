package io.jkompute.cuda.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.cuda.DType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The reduction knobs from system properties: defaults, parsing, clear errors, and their place in the kernel key. */
class ReductionTuningTest {
    @AfterEach
    void clear() {
        ReductionTuning.clear();
    }

    @Test
    void unsetPropertiesAreTheDefaults() {
        ReductionTuning.clear();
        ReductionTuning t = ReductionTuning.current();
        assertEquals(ReductionTuning.DEFAULTS, t);
        assertEquals(new ReductionTuning(512, 2, 8, ReductionTuning.RowMode.AUTO, 256, ReductionTuning.Load.DEFAULT), t);
    }

    @Test
    void propertiesAreParsedAndChangeTheKernelKey() {
        ArrayLayout big = ArrayLayout.contiguous(1 << 24);
        String before = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, big, new int[0], false, 0, 132).key();
        System.setProperty("jkompute.cuda.reduce.threads", "512");
        System.setProperty("jkompute.cuda.reduce.blocksPerSm", "2");
        System.setProperty("jkompute.cuda.reduce.loads", "8");
        System.setProperty("jkompute.cuda.reduce.rowMode", "BLOCK");
        System.setProperty("jkompute.cuda.reduce.rowThreads", "128");
        System.setProperty("jkompute.cuda.reduce.load", "nc_na");
        ReductionTuning t = ReductionTuning.current();
        assertEquals(new ReductionTuning(512, 2, 8, ReductionTuning.RowMode.BLOCK, 128, ReductionTuning.Load.NC_NA), t);
        ReductionKernel.Plan p = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, big, new int[0], false, 0, 132);
        assertNotEquals(before, p.key());
        assertEquals(264, p.splits());
        assertEquals(512, p.threads());
        String src = p.source();
        assertTrue(src.contains("__launch_bounds__(512, 2)"), src);
        assertTrue(src.contains("ld.global.nc.L1::no_allocate.v4.u32"), src);
        assertTrue(src.contains("a7"), "eight accumulators: " + src);
        // flags() spells out what apply() sets
        ReductionTuning.clear();
        t.apply();
        assertEquals(t, ReductionTuning.current());
        assertTrue(t.flags().contains("-Djkompute.cuda.reduce.rowMode=block"), t.flags());
    }

    @Test
    void badValuesAreClearErrors() {
        System.setProperty("jkompute.cuda.reduce.threads", "300");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, ReductionTuning::current);
        assertTrue(e.getMessage().contains("jkompute.cuda.reduce.threads"), e.getMessage());
        ReductionTuning.clear();
        System.setProperty("jkompute.cuda.reduce.loads", "many");
        e = assertThrows(IllegalArgumentException.class, ReductionTuning::current);
        assertTrue(e.getMessage().contains("jkompute.cuda.reduce.loads"), e.getMessage());
        ReductionTuning.clear();
        System.setProperty("jkompute.cuda.reduce.rowMode", "diagonal");
        e = assertThrows(IllegalArgumentException.class, ReductionTuning::current);
        assertTrue(e.getMessage().contains("[auto, warp, block]"), e.getMessage());
        ReductionTuning.clear();
        System.setProperty("jkompute.cuda.reduce.blocksPerSm", "0");
        assertThrows(IllegalArgumentException.class, ReductionTuning::current);
    }
}
