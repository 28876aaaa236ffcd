package io.jkompute.graph.yaml;

import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.SourceLocation;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads GXF-format YAML apps into a {@link Graph}: multi-document files, entities with {@code name} and
 * {@code components} ({@code name}, {@code type}, {@code parameters}), override documents (components with
 * {@code name} and {@code parameters} only) and {@code entity/component/parameter=value} overrides. Every error
 * names the file and line. Text is composed into SnakeYAML documents first and the documents are read, so a caller
 * that rebuilds an app's documents (the fragment planner) reads them the same way.
 */
public final class YamlGraphReader {
    private static final Logger LOG = LoggerFactory.getLogger(YamlGraphReader.class);
    private static final int MAX_NESTING = 64;
    /**
     * GXF document kinds that describe tooling, not the graph; read and ignored. {@code fragments} (jkompute-net's
     * split of an app over processes) is ignored too, so a fragmented app also runs whole in one process.
     */
    private static final Set<String> IGNORED_DOCUMENTS = Set.of("dependencies", "interfaces", "prerequisites",
            "EntityGroups", "start_order", "fragments");

    private final Graph graph;

    public YamlGraphReader(Graph graph) {
        this.graph = graph;
    }

    /** Reads one file. */
    public void read(Path file) {
        String label = file.toString();
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new GraphLoadException(new SourceLocation(label, 0), "cannot read the app file: " + e, e);
        }
        read(label, text);
    }

    /** Reads YAML text; {@code label} is the file name used in messages and for relative paths. */
    public void read(String label, String text) {
        read(label, compose(label, text));
    }

    /**
     * Reads composed documents, one node per YAML document, as {@link #compose} gives them or as a caller rebuilt
     * them from those. {@code label} names the file the nodes were composed from, in messages and for relative paths;
     * the nodes' marks give the lines, and a node built in code has no mark, so its errors name the file alone.
     */
    public void read(String label, List<Node> documents) {
        for (Node doc : documents) {
            readDocument(label, doc);
        }
    }

    /**
     * Composes YAML text into its documents, with marks that name {@code label}; YAML errors are load errors naming
     * the file and line.
     */
    public static List<Node> compose(String label, String text) {
        LoadSettings settings = LoadSettings.builder().setLabel(label).build();
        List<Node> documents = new ArrayList<>();
        try {
            checkNesting(label, new Parse(settings).parseString(text));
            for (Node n : new Compose(settings).composeAllFromString(text)) {
                documents.add(n);
            }
        } catch (MarkedYamlEngineException e) {
            throw new GraphLoadException(at(label, e.getProblemMark()), "bad YAML: " + firstLine(e.getMessage()), e);
        } catch (YamlEngineException e) {
            throw new GraphLoadException(new SourceLocation(label, 0), "bad YAML: " + firstLine(e.getMessage()), e);
        }
        return documents;
    }

    /** Applies {@code entity/component/parameter=value}; the value is read as YAML ("2", "true", "[a, b]"). */
    public void override(String spec) {
        SourceLocation where = new SourceLocation("--param " + spec, 0);
        int eq = spec.indexOf('=');
        String[] path = eq < 0 ? new String[0] : spec.substring(0, eq).split("/", -1);
        if (path.length != 3 || path[0].isEmpty() || path[1].isEmpty() || path[2].isEmpty()) {
            throw new GraphLoadException(where, "expected entity/component/parameter=value");
        }
        Entity e = graph.entity(path[0]);
        if (e == null) {
            throw new GraphLoadException(where, "no entity '" + path[0] + "' (entities: "
                    + graph.entities().stream().map(Entity::name).toList() + ")");
        }
        Component c = e.component(path[1]);
        if (c == null) {
            throw new GraphLoadException(where, "entity '" + path[0] + "' has no component '" + path[1] + "'");
        }
        String valueText = spec.substring(eq + 1);
        Object value;
        if (valueText.isEmpty()) {
            value = "";
        } else {
            try {
                LoadSettings settings = LoadSettings.builder().setLabel("--param").build();
                checkNesting(where.file(), new Parse(settings).parseString(valueText));
                Optional<Node> n = new Compose(settings).composeString(valueText);
                value = n.isPresent() ? toJava(where.file(), n.get()) : null;
            } catch (YamlEngineException ex) {
                throw new GraphLoadException(where, "bad value: " + firstLine(ex.getMessage()), ex);
            }
        }
        graph.setParameter(c, path[2], value, where);
    }

    private void readDocument(String label, Node doc) {
        if (doc instanceof ScalarNode s && s.getValue().isEmpty()) {
            return; // empty document
        }
        MappingNode map = mapping(label, doc, "an entity document (name:, components:)");
        Map<String, Node> keys = keys(label, map);
        if (keys.isEmpty()) {
            return;
        }
        for (String k : keys.keySet()) {
            if (IGNORED_DOCUMENTS.contains(k)) {
                LOG.debug("{}: ignoring '{}' document", at(label, doc), k);
                return;
            }
        }
        for (Map.Entry<String, Node> k : keys.entrySet()) {
            if (!k.getKey().equals("name") && !k.getKey().equals("components")) {
                throw new GraphLoadException(at(label, k.getValue()), "unknown key '" + k.getKey()
                        + "' in an entity document; expected 'name' and 'components'");
            }
        }
        String name = keys.containsKey("name") ? scalar(label, keys.get("name"), "an entity name") : null;
        Entity entity = graph.addEntity(name, at(label, doc));
        Node comps = keys.get("components");
        if (comps == null) {
            return;
        }
        if (comps instanceof ScalarNode s && s.getTag().equals(Tag.NULL)) {
            return;
        }
        if (!(comps instanceof SequenceNode seq)) {
            throw new GraphLoadException(at(label, comps), "expected 'components' to be a list of components");
        }
        for (Node item : seq.getValue()) {
            readComponent(label, entity, item);
        }
    }

    private void readComponent(String label, Entity entity, Node item) {
        MappingNode map = mapping(label, item, "a component (name:, type:, parameters:)");
        Map<String, Node> keys = keys(label, map);
        for (Map.Entry<String, Node> k : keys.entrySet()) {
            if (!Set.of("name", "type", "parameters").contains(k.getKey())) {
                throw new GraphLoadException(at(label, k.getValue()), "unknown key '" + k.getKey()
                        + "' in a component; expected 'name', 'type' and 'parameters'");
            }
        }
        String name = keys.containsKey("name") ? scalar(label, keys.get("name"), "a component name") : null;
        Component component;
        if (keys.containsKey("type")) {
            String type = scalar(label, keys.get("type"), "a component type");
            component = graph.addComponent(entity, type, name, at(label, keys.get("type")));
        } else {
            if (name == null) {
                throw new GraphLoadException(at(label, item), "a component needs a 'type' (or a 'name' of an "
                        + "earlier component to override its parameters)");
            }
            component = entity.component(name);
            if (component == null) {
                throw new GraphLoadException(at(label, item), "component '" + name + "' has no 'type' and entity '"
                        + entity.name() + "' has no earlier component of that name to override");
            }
        }
        Node params = keys.get("parameters");
        if (params == null || params instanceof ScalarNode s && s.getTag().equals(Tag.NULL)) {
            return;
        }
        MappingNode pm = mapping(label, params, "'parameters' to be a map of name: value");
        for (NodeTuple t : pm.getValue()) {
            String key = scalar(label, t.getKeyNode(), "a parameter name");
            graph.setParameter(component, key, toJava(label, t.getValueNode()), at(label, t.getValueNode()));
        }
    }

    /** Plain Java values from a node: Long, Double, Boolean, String, null, List, Map. */
    static Object toJava(String label, Node node) {
        if (node instanceof ScalarNode s) {
            Tag tag = s.getTag();
            String v = s.getValue();
            try {
                if (tag.equals(Tag.INT)) {
                    BigInteger b = new BigInteger(v.startsWith("+") ? v.substring(1) : v);
                    if (b.bitLength() > 63) {
                        throw new GraphLoadException(at(label, node), "integer " + v + " does not fit in 64 bits");
                    }
                    return b.longValue();
                }
                if (tag.equals(Tag.FLOAT)) {
                    return switch (v.toLowerCase()) {
                        case ".inf", "+.inf" -> Double.POSITIVE_INFINITY;
                        case "-.inf" -> Double.NEGATIVE_INFINITY;
                        case ".nan" -> Double.NaN;
                        default -> Double.parseDouble(v);
                    };
                }
            } catch (NumberFormatException e) {
                return v;
            }
            if (tag.equals(Tag.BOOL)) {
                return Boolean.parseBoolean(v.toLowerCase());
            }
            if (tag.equals(Tag.NULL)) {
                return null;
            }
            return v;
        }
        if (node instanceof SequenceNode seq) {
            List<Object> out = new ArrayList<>();
            for (Node n : seq.getValue()) {
                out.add(toJava(label, n));
            }
            return out;
        }
        MappingNode m = (MappingNode) node;
        Map<String, Object> out = new LinkedHashMap<>();
        for (NodeTuple t : m.getValue()) {
            out.put(String.valueOf(toJava(label, t.getKeyNode())), toJava(label, t.getValueNode()));
        }
        return out;
    }

    private static MappingNode mapping(String label, Node node, String expected) {
        if (node instanceof MappingNode m) {
            return m;
        }
        throw new GraphLoadException(at(label, node), "expected " + expected);
    }

    private static Map<String, Node> keys(String label, MappingNode map) {
        Map<String, Node> out = new LinkedHashMap<>();
        for (NodeTuple t : map.getValue()) {
            String k = scalar(label, t.getKeyNode(), "a key");
            if (out.put(k, t.getValueNode()) != null) {
                throw new GraphLoadException(at(label, t.getKeyNode()), "duplicate key '" + k + "'");
            }
        }
        return out;
    }

    private static String scalar(String label, Node node, String expected) {
        if (node instanceof ScalarNode s && !s.getTag().equals(Tag.NULL)) {
            return s.getValue();
        }
        throw new GraphLoadException(at(label, node), "expected " + expected);
    }

    /**
     * SnakeYAML composes nested collections recursively, so a deep enough nesting overflows the stack: the event
     * stream is read first (iteratively) and a nesting deeper than any app needs is refused with its line.
     */
    private static void checkNesting(String label, Iterable<Event> events) {
        int depth = 0;
        for (Event e : events) {
            switch (e.getEventId()) {
                case SequenceStart, MappingStart -> {
                    if (++depth > MAX_NESTING) {
                        throw new GraphLoadException(at(label, e.getStartMark()),
                                "bad YAML: collections nested deeper than " + MAX_NESTING + " levels");
                    }
                }
                case SequenceEnd, MappingEnd -> depth--;
                default -> { }
            }
        }
    }

    private static SourceLocation at(String label, Node node) {
        return at(label, node.getStartMark());
    }

    private static SourceLocation at(String label, Optional<Mark> mark) {
        return new SourceLocation(label, mark.map(m -> m.getLine() + 1).orElse(0));
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        return s.replace('\n', ' ').replaceAll(" +", " ").trim();
    }
}
