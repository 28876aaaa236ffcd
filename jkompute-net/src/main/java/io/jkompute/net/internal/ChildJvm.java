package io.jkompute.net.internal;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of a command line for another JVM like this one: this JVM's java launcher and its options, so a child
 * (a fragment worker, a benchmark peer) gets the same JDK flags Aeron needs, however this JVM was started. A debugger
 * agent and the main-module setting are never passed on (the child has its own main).
 */
public final class ChildJvm {
    private static volatile String classPath;
    private static volatile List<String> extraOptions = List.of();

    private ChildJvm() {
    }

    /**
     * Starts every later child on {@code classPath} with {@code options} added to this JVM's: the module's tests start
     * children from a class-data archive of jarred classes (CDS maps classes from jars only).
     */
    public static void startChildrenWith(String classPath, List<String> options) {
        ChildJvm.classPath = classPath;
        extraOptions = List.copyOf(options);
    }

    /** The class path children start on: this JVM's, unless {@link #startChildrenWith} named another. */
    public static String classPath() {
        String cp = classPath;
        return cp != null ? cp : System.getProperty("java.class.path");
    }

    /**
     * java and this JVM's options, without those starting with one of {@code dropPrefixes}, then the options of
     * {@link #startChildrenWith}; a mutable list.
     */
    public static List<String> javaAndOptions(String... dropPrefixes) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin",
                "java").toString()));
        options:
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("-agentlib:jdwp") || a.startsWith("-Djdk.module.main")) {
                continue;
            }
            for (String p : dropPrefixes) {
                if (a.startsWith(p)) {
                    continue options;
                }
            }
            cmd.add(a);
        }
        cmd.addAll(extraOptions);
        return cmd;
    }
}
