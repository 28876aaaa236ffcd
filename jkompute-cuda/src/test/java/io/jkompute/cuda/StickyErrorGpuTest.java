package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A kernel fault is a "sticky" error: the context stays unusable for the rest of the process. Run in a child JVM so
 * the poisoned context does not break the other tests.
 */
@Tag("gpu")
class StickyErrorGpuTest {

    @Test
    void anIllegalAddressIsReportedAsStickyAndLaterCallsFailTooButTheJvmSurvives() throws Exception {
        GpuTestSupport.requireCuda();
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                StickyErrorProbe.class.getName()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.println(out.strip());
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("first: code=700 sticky=true message=cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (700)"), out);
        assertTrue(out.contains("[sticky: this process can no longer use this GPU; restart it]"), out);
        assertTrue(out.contains("after: code=700"), out);
        assertTrue(out.contains("probe done"), out);
    }
}
