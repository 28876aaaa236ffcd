package io.jkompute.net;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A test JVM killed outright leaves no child running (see {@link ChildMain}). */
class OrphanedChildTest {
    /** A test JVM's stand-in: starts a child that would sleep for a minute, prints its pid, then waits. */
    public static final class Parent {
        public static void main(String[] args) throws Exception {
            Jvm child = Jvm.launch("sleeper", Jvm.classPath(), List.of(), Sleeper.class.getName());
            System.out.println("CHILD " + child.process.pid());
            Thread.sleep(60_000);
        }
    }

    /** A child with nothing to do for a minute. */
    public static final class Sleeper {
        public static void main(String[] args) throws Exception {
            Thread.sleep(60_000);
        }
    }

    @Test
    void aChildEndsWhenTheJvmThatStartedItIsKilled() throws Exception {
        ChildClasses classes = ChildClasses.get();
        try (Jvm parent = Jvm.launch("parent", classes.classPath, classes.flags, Parent.class.getName())) {
            long pid = Long.parseLong(parent.awaitLine("CHILD ", 60).substring(6).strip());
            Optional<ProcessHandle> child = ProcessHandle.of(pid);
            assertTrue(child.isPresent() && child.get().isAlive(), "the child runs while its parent does");
            parent.process.destroyForcibly(); // SIGKILL: the parent closes nothing
            assertTrue(parent.process.waitFor(10, TimeUnit.SECONDS));
            try {
                child.get().onExit().get(15, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                child.get().destroyForcibly();
                throw new AssertionError("the child (pid " + pid + ") still ran 15 s after its parent was killed");
            }
            assertFalse(child.get().isAlive());
        }
    }
}
