package io.jkompute.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.testing.Recorder;
import io.jkompute.graph.yaml.YamlGraphReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.snakeyaml.engine.v2.common.FlowStyle;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/** YAML loading: every error with file and line; overrides; Java codelets compiled from a .java file. */
class YamlAndJavaCodeletTest {
    private static final Path ERRORS = Graphs.RESOURCES.resolve("errors");

    private static GraphLoadException loadError(String file) {
        return assertThrows(GraphLoadException.class, () -> Graph.load(ERRORS.resolve(file)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "unknown-type.yaml      | 6  | unknown component type 'DoubleBufferTransmiter'; known types: AsynchronousSchedulingTerm,",
            "unknown-parameter.yaml | 9  | unknown parameter 'colour' for DoubleBufferTransmitter 'tx/out'; its parameters are [capacity, policy]",
            "missing-parameter.yaml | 8  | CountSchedulingTerm 'tx/limit': mandatory parameter 'count' (int64) is missing",
            "wrong-type.yaml        | 8  | DoubleBufferTransmitter 'tx/out': parameter 'capacity': expected an integer, got 'lots'",
            "dangling-handle.yaml   | 12 | Connection '_entity_1/_Connection_0': parameter 'target': dangling handle 'rx/in': no entity 'rx' (entities: [tx, _entity_1])",
            "wrong-handle-type.yaml | 8  | MessageAvailableSchedulingTerm 'tx/_MessageAvailableSchedulingTerm_1': parameter 'receiver': handle 'out' is a DoubleBufferTransmitter, expected a Receiver",
            "bad-syntax.yaml        | 7  | bad YAML: mapping values are not allowed here",
            "orphan-override.yaml   | 5  | component 'out' has no 'type' and entity 'tx' has no earlier component of that name to override"})
    void errorsNameFileLineAndWhatWasExpected(String file, int line, String message) {
        GraphLoadException e = loadError(file);
        assertEquals(new SourceLocation(ERRORS.resolve(file).toString(), line), e.location(), e.getMessage());
        assertTrue(e.getMessage().startsWith(ERRORS.resolve(file) + ":" + line + ": " + message), e.getMessage());
    }

    @Test
    void composedDocumentsAreReadWithTheLinesOfTheirNodes() throws IOException {
        Path file = ERRORS.resolve("unknown-type.yaml");
        String label = file.toString();
        List<Node> documents = YamlGraphReader.compose(label, Files.readString(file));
        try (Graph g = Graph.create()) {
            GraphLoadException e = assertThrows(GraphLoadException.class,
                    () -> new YamlGraphReader(g).read(label, documents));
            assertEquals(new SourceLocation(label, 6), e.location(), e.getMessage());
        }
        // a document built in code has no marks: its errors name the file without a line
        MappingNode built = new MappingNode(Tag.MAP, List.of(
                new NodeTuple(plain(Tag.STR, "name"), plain(Tag.STR, "added")),
                new NodeTuple(plain(Tag.STR, "components"), new SequenceNode(Tag.SEQ, List.of(
                        new MappingNode(Tag.MAP, List.of(new NodeTuple(plain(Tag.STR, "type"),
                                plain(Tag.STR, "NoSuchType"))), FlowStyle.BLOCK)), FlowStyle.BLOCK))),
                FlowStyle.BLOCK);
        try (Graph g = Graph.create()) {
            GraphLoadException e = assertThrows(GraphLoadException.class,
                    () -> new YamlGraphReader(g).read("app.yaml", List.of(built)));
            assertEquals(new SourceLocation("app.yaml", 0), e.location(), e.getMessage());
            assertTrue(e.getMessage().startsWith("app.yaml: unknown component type 'NoSuchType'"), e.getMessage());
        }
    }

    private static ScalarNode plain(Tag tag, String value) {
        return new ScalarNode(tag, value, ScalarStyle.PLAIN);
    }

    @Test
    void compileErrorsInACodeletFileNameTheJavaLine() {
        GraphLoadException e = loadError("compile-error.yaml");
        assertEquals(6, e.location().line());
        assertTrue(e.getMessage().contains("JavaCodelet 'broken/code': cannot compile "), e.getMessage());
        assertTrue(e.getMessage().contains("Broken.java:6: incompatible types: java.lang.String cannot be converted to int"),
                e.getMessage());
    }

    @Test
    void badOverridesAreRefusedWithTheOverrideInTheMessage() {
        Graph.Loader l = Graph.loader().file(Graphs.RESOURCES.resolve("graphs/ping.yaml"))
                .file(Graphs.RESOURCES.resolve("schedulers/greedy.yaml")).param("tx/count/count=ten");
        GraphLoadException e = assertThrows(GraphLoadException.class, l::load);
        assertEquals("--param tx/count/count=ten: CountSchedulingTerm 'tx/count': parameter 'count': expected an "
                + "integer, got 'ten'", e.getMessage());
        GraphLoadException e2 = assertThrows(GraphLoadException.class, () -> Graph.loader()
                .file(Graphs.RESOURCES.resolve("graphs/ping.yaml")).param("tx/count=3").load());
        assertEquals("--param tx/count=3: expected entity/component/parameter=value", e2.getMessage());
    }

    @Test
    void parameterFilesAndCommandLineOverridesApplyInOrder() {
        Graph g = Graph.loader().file(Graphs.RESOURCES.resolve("graphs/ping.yaml"))
                .file(Graphs.RESOURCES.resolve("schedulers/greedy.yaml"))
                .file(ERRORS.resolve("override.yaml")).load();
        try (g) {
            g.run();
            assertEquals(4, g.entity("tx").tickCount(), "override document set count 4");
        }
        try (Graph g2 = Graph.loader().file(Graphs.RESOURCES.resolve("graphs/ping.yaml"))
                .file(Graphs.RESOURCES.resolve("schedulers/greedy.yaml")).file(ERRORS.resolve("override.yaml"))
                .param("tx/count/count=7").load()) {
            g2.run();
            assertEquals(7, g2.entity("tx").tickCount(), "--param wins over files");
        }
    }

    @Test
    void javaCodeletFromASourceFileCompiledAtLoadTime() {
        try (Graph g = Graphs.load("java-file.yaml", "eventbased")) {
            Class<?> cls = g.component("dbl/doubler", JavaCodelet.class).instance().getClass();
            assertEquals("Doubler", cls.getName());
            assertTrue(cls.getClassLoader() != getClass().getClassLoader(), "loaded from the compiled source");
            g.run();
            assertEquals(List.of(102L, 104L, 106L, 108L, 110L), Graphs.codelet(g, "rx/rec", Recorder.class).acqtimes);
        }
    }

    @Test
    void aCodeletFileIsCompiledOncePerTextAndAgainWhenItChanges(@TempDir Path dir) throws IOException {
        Path source = dir.resolve("Doubler.java");
        Files.copy(Graphs.RESOURCES.resolve("codelets/Doubler.java"), source);
        Files.writeString(dir.resolve("app.yaml"), Files.readString(Graphs.RESOURCES.resolve("graphs/java-file.yaml"))
                .replace("codelet_file: ../codelets/Doubler.java", "codelet_file: Doubler.java"));
        Class<?> first = runDoubler(dir, List.of(102L, 104L, 106L, 108L, 110L));
        assertSame(first, runDoubler(dir, List.of(102L, 104L, 106L, 108L, 110L)),
                "the same text of the file: the class compiled at the first load");
        Files.writeString(source, Files.readString(source).replace("2 * m.timestamp()", "3 * m.timestamp()"));
        Class<?> edited = runDoubler(dir, List.of(103L, 106L, 109L, 112L, 115L));
        assertNotSame(first, edited, "an edited file compiles anew");
    }

    private static Class<?> runDoubler(Path dir, List<Long> expected) {
        try (Graph g = Graph.loader().file(dir.resolve("app.yaml"))
                .file(Graphs.RESOURCES.resolve("schedulers/greedy.yaml")).load()) {
            g.run();
            assertEquals(expected, Graphs.codelet(g, "rx/rec", Recorder.class).acqtimes);
            return g.component("dbl/doubler", JavaCodelet.class).instance().getClass();
        }
    }

    @Test
    void gxfQualifiedTypeNamesAreAliases() {
        assertTrue(ComponentRegistry.standard().contains("nvidia::gxf::GreedyScheduler"));
        assertTrue(ComponentRegistry.standard().contains("GreedyScheduler"));
    }

    @Test
    void recessPeriodStrings() {
        assertEquals(100_000_000L, ParameterTypes.parsePeriodNs("100ms"));
        assertEquals(100_000_000L, ParameterTypes.parsePeriodNs("10Hz"));
        assertEquals(100_000_000L, ParameterTypes.parsePeriodNs("10 hz"));
        assertEquals(200_000_000L, ParameterTypes.parsePeriodNs("0.2s"));
        assertEquals(5000L, ParameterTypes.parsePeriodNs("5000"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ParameterTypes.parsePeriodNs("0ms"));
        assertEquals("expected a period above zero, got '0ms'", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ParameterTypes.parsePeriodNs("fast"));
    }
}
