package io.jkompute.net;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * The entry point of the tests' child JVMs: runs the main class named by the first argument with the rest, and ends
 * the child when the test JVM that started it is gone. A test JVM that is killed (a build stopped midway, a fork's
 * timeout) cannot close its children; left running, a sending child kept sending to the port its receiver had, and
 * the next test that was handed that port took the orphan's frames. An orphan exits with {@link #ORPHANED}, through
 * the usual shutdown, so its Aeron folder goes with it.
 */
public final class ChildMain {
    /** The exit status of a child whose test JVM ended before it. */
    public static final int ORPHANED = 86;
    /** The system property that names the test JVM's pid. */
    static final String PARENT_PID = "jkompute.test.parentPid";

    private ChildMain() {
    }

    public static void main(String[] args) throws Throwable {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: ChildMain MAIN_CLASS [ARGS...]");
        }
        // the pid the parent gave, not this process's parent now: a parent killed while this JVM started has
        // already handed its child to init
        Long parent = Long.getLong(PARENT_PID);
        if (parent != null) {
            ProcessHandle.of(parent).map(ProcessHandle::onExit)
                    .orElse(CompletableFuture.completedFuture(null)).thenRun(() -> {
                        System.err.println("the test JVM (pid " + parent + ") ended: this child ends too");
                        System.exit(ORPHANED);
                    });
        }
        MethodHandle main = MethodHandles.publicLookup().findStatic(Class.forName(args[0]), "main",
                MethodType.methodType(void.class, String[].class));
        main.invokeExact(Arrays.copyOfRange(args, 1, args.length));
    }
}
