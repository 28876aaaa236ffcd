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

    @Test
    void copyAndScheduleKnobs() {
        System.setProperty("jkompute.cuda.reduce.copy", "bulk");
        System.setProperty("jkompute.cuda.reduce.stage", "8192");
        System.setProperty("jkompute.cuda.reduce.stages", "4");
        System.setProperty("jkompute.cuda.reduce.schedule", "dynamic");
        ReductionTuning t = ReductionTuning.current();
        assertEquals(ReductionTuning.Copy.BULK, t.copy());
        assertEquals(8192, t.stage());
        assertEquals(4, t.stages());
        assertEquals(ReductionTuning.Schedule.DYNAMIC, t.schedule());
        assertTrue(t.flags().contains("-Djkompute.cuda.reduce.copy=bulk -Djkompute.cuda.reduce.stage=8192 -Djkompute.cuda.reduce.stages=4 "
                + "-Djkompute.cuda.reduce.schedule=dynamic"), t.flags());
        ReductionTuning.clear();
        t.apply();
        assertEquals(t, ReductionTuning.current());
        // the bulk kernel only where the device has the copies (sm_90 and up), and a key of its own
        ArrayLayout big = ArrayLayout.contiguous(1 << 26);
        ReductionKernel.Plan hopper = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, big, new int[0], false, 0, 132, 90, t);
        ReductionKernel.Plan ampere = ReductionKernel.plan(ReductionKernel.Op.SUM, DType.FLOAT32, big, new int[0], false, 0, 108, 80, t);
        assertTrue(hopper.bulk() && hopper.dynamic());
        assertTrue(!ampere.bulk() && ampere.dynamic());
        assertNotEquals(hopper.key(), ampere.key());
        assertTrue(hopper.source().contains("cp.async.bulk.shared::cluster.global"), hopper.source());
        assertTrue(!ampere.source().contains("cp.async.bulk"), ampere.source());
        assertEquals(1024, ReductionTuning.DYNAMIC_CHUNK / 64, "64 Ki elements per chunk when no tile is given");
        assertEquals((1L << 26) / ReductionTuning.DYNAMIC_CHUNK, hopper.splits());
        // clear errors: stages x stage over the static shared memory, a dynamic schedule without the last-block finish
        ReductionTuning.clear();
        System.setProperty("jkompute.cuda.reduce.copy", "bulk");
        System.setProperty("jkompute.cuda.reduce.stage", "32768");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, ReductionTuning::current);
        assertTrue(e.getMessage().contains("at most 47104 bytes"), e.getMessage());
        System.setProperty("jkompute.cuda.reduce.stage", "10000");
        e = assertThrows(IllegalArgumentException.class, ReductionTuning::current);
        assertTrue(e.getMessage().contains("multiple of 1024"), e.getMessage());
        ReductionTuning.clear();
        System.setProperty("jkompute.cuda.reduce.schedule", "dynamic");
        System.setProperty("jkompute.cuda.reduce.finish", "kernel");
        e = assertThrows(IllegalArgumentException.class, ReductionTuning::current);
        assertTrue(e.getMessage().contains("needs jkompute.cuda.reduce.finish=last"), e.getMessage());
        System.setProperty("jkompute.cuda.reduce.finish", "last");
        System.setProperty("jkompute.cuda.reduce.copy", "tma");
        e = assertThrows(IllegalArgumentException.class, ReductionTuning::current);
        assertTrue(e.getMessage().contains("[loads, bulk]"), e.getMessage());
    }
}
