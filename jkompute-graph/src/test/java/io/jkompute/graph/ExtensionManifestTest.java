package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.testing.Probe;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Component types from an extension jar listed in a manifest, found through ServiceLoader. */
class ExtensionManifestTest {
    private static final String TERM = """
            package ext;
            public class NeverTerm extends io.jkompute.graph.SchedulingTerm {
                @Override public io.jkompute.graph.SchedulingCondition check(long now) {
                    return io.jkompute.graph.SchedulingCondition.NEVER;
                }
            }
            """;
    private static final String EXTENSION = """
            package ext;
            public class TestExtension implements io.jkompute.graph.GraphExtension {
                @Override public String name() { return "TestExtension"; }
                @Override public void register(io.jkompute.graph.ComponentRegistry r) {
                    r.register("NeverTerm", NeverTerm::new);
                }
            }
            """;

    @Test
    void javaCodeletFromAJar(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/jarred"));
        Files.writeString(src.resolve("Counter.java"), """
                package jarred;
                public class Counter extends io.jkompute.graph.CodeletAdapter {
                    public int ticks;
                    @Override public void tick() { ticks++; }
                }
                """);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), "-cp",
                System.getProperty("java.class.path"), src.resolve("Counter.java").toString()));
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(dir.resolve("codelets.jar")))) {
            out.putNextEntry(new JarEntry("jarred/Counter.class"));
            out.write(Files.readAllBytes(classes.resolve("jarred/Counter.class")));
        }
        Path app = dir.resolve("app.yaml");
        Files.writeString(app, """
                name: e
                components:
                - { type: CountSchedulingTerm, parameters: { count: 3 } }
                - { name: c, type: JavaCodelet, parameters: { codelet_name: jarred.Counter, codelet_file: codelets.jar } }
                ---
                name: sched
                components:
                - { name: clock, type: ManualClock }
                - { type: GreedyScheduler, parameters: { clock: clock } }
                """);
        Class<?> first;
        try (Graph g = Graph.load(app)) {
            g.run();
            Object counter = g.component("e/c", JavaCodelet.class).instance();
            assertEquals(3, counter.getClass().getField("ticks").getInt(counter));
            first = counter.getClass();
        }
        try (Graph g = Graph.load(app)) {
            g.run();
            Object counter = g.component("e/c", JavaCodelet.class).instance();
            assertEquals(3, counter.getClass().getField("ticks").getInt(counter), "a fresh instance of the class");
            assertSame(first, counter.getClass(), "the same jar again: the class its loader has already loaded");
        }
    }

    @Test
    void manifestLoadsExtensionJars(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/ext"));
        Files.writeString(src.resolve("NeverTerm.java"), TERM);
        Files.writeString(src.resolve("TestExtension.java"), EXTENSION);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
                src.resolve("NeverTerm.java").toString(), src.resolve("TestExtension.java").toString());
        assertEquals(0, rc);
        Path jar = dir.resolve("ext.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (String c : List.of("ext/NeverTerm.class", "ext/TestExtension.class")) {
                out.putNextEntry(new JarEntry(c));
                out.write(Files.readAllBytes(classes.resolve(c)));
            }
            out.putNextEntry(new JarEntry("META-INF/services/io.jkompute.graph.GraphExtension"));
            OutputStream o = out;
            o.write("ext.TestExtension\n".getBytes());
        }
        Path manifest = dir.resolve("manifest.yaml");
        Files.writeString(manifest, "extensions: [ext.jar]\n");
        Path app = dir.resolve("app.yaml");
        Files.writeString(app, """
                name: e
                components:
                - { name: never, type: NeverTerm }
                - { name: probe, type: JavaCodelet, parameters: { codelet_name: io.jkompute.graph.testing.Probe } }
                ---
                name: sched
                components:
                - { name: clock, type: ManualClock }
                - { type: GreedyScheduler, parameters: { clock: clock } }
                """);

        GraphLoadException unknown = assertThrows(GraphLoadException.class, () -> Graph.load(app));
        assertTrue(unknown.getMessage().contains("unknown component type 'NeverTerm'"), unknown.getMessage());

        try (Graph g = Graph.loader().manifest(manifest).file(app).load()) {
            assertTrue(g.registry().extensionNames().contains("TestExtension"));
            RunResult r = g.run();
            assertEquals(StopReason.COMPLETED, r.reason());
            assertEquals(List.of(), Graphs.codelet(g, "e/probe", Probe.class).tickTimes);
        }
    }
}
