package io.jkompute.python;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.io.PrintWriter;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/**
 * Runs this module's tests (CI and {@code gpu}) from a plain main, for a machine with a JRE but no Maven; run it from
 * the module folder (the tests read {@code ../apps} and {@code src/test/resources}). Exits 1 on any failure.
 */
public final class PythonTestMain {
    private PythonTestMain() {
    }

    public static void main(String[] args) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectPackage("io.jkompute.python")).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        TestExecutionListener printer = new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                System.out.println("SKIP " + id.getDisplayName() + ": " + reason);
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (!id.isTest()) {
                    return;
                }
                String name = id.getUniqueId().replaceAll(".*class:([^\\]]+)\\].*method:([^(]+).*", "$1.$2")
                        + " " + id.getDisplayName();
                switch (result.getStatus()) {
                    case SUCCESSFUL -> System.out.println("PASS " + name);
                    case ABORTED -> System.out.println("SKIP " + name + ": "
                            + result.getThrowable().map(Throwable::getMessage).orElse(""));
                    case FAILED -> {
                        System.out.println("FAIL " + name);
                        result.getThrowable().ifPresent(t -> t.printStackTrace(System.out));
                    }
                }
            }
        };
        launcher.execute(request, summary, printer);
        summary.getSummary().printTo(new PrintWriter(System.out));
        System.out.flush();
        System.exit(summary.getSummary().getTotalFailureCount() == 0 ? 0 : 1);
    }
}
