package io.jkompute.net.fragment;

import io.jkompute.graph.ComponentRegistry;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphLoadException;
import io.jkompute.graph.SourceLocation;
import io.jkompute.graph.yaml.YamlGraphReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.common.FlowStyle;
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
 * One app file split into fragments (Holoscan's distributed-app model): a {@code fragments:} document names, per
 * fragment, its entities and optionally the GPU it runs on; entities listed under {@code shared:} (schedulers,
 * clocks, devices) go into every fragment.
 *
 * <pre>
 * ---
 * fragments:
 *   tx: [tx]                                # fragment name: its entities
 *   rx: { entities: [rx], gpu: 1 }          # gpu: VulkanDevice device_index; cuda_device: GPUDevice dev_id
 * shared: [sched]
 * </pre>
 *
 * A {@code Connection} whose ends are in two fragments becomes, in the source fragment, an
 * {@code nvidia::gxf::UcxTransmitter} in place of the transmitter and, in the target fragment, an
 * {@code nvidia::gxf::UcxReceiver} in place of the receiver: same entity and component names (the codelets' handles
 * still resolve), same capacity and policy; addresses and ports come from the driver ({@link Wiring}). A fragment's
 * graph is the app text with the other fragments' documents and connections blanked out (lines are kept, so load
 * errors still name the app file and its line), the queue types swapped, the transport's own entity appended and
 * the addresses set as parameter overrides. Errors name the file and line.
 */
public final class FragmentPlan {
    /** The transport's component types (GXF's names). */
    public static final String UCX_TRANSMITTER = "nvidia::gxf::UcxTransmitter";
    /** GXF's name of the receiving end of a link. */
    public static final String UCX_RECEIVER = "nvidia::gxf::UcxReceiver";
    /** GXF's name of the transport's context component. */
    public static final String UCX_CONTEXT = "nvidia::gxf::UcxContext";
    /** GXF's name of the entity serializer a link uses. */
    public static final String UCX_SERIALIZER = "nvidia::gxf::UcxEntitySerializer";
    /** The entity added to a fragment that has cross-fragment edges; holds the transport's context. */
    public static final String TRANSPORT_ENTITY = "_fragment_transport";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]+");
    private static final Set<String> TRANSMITTERS = Set.of("DoubleBufferTransmitter");
    private static final Set<String> RECEIVERS = Set.of("DoubleBufferReceiver");

    /** A fragment: its entities (own and shared) and placement. */
    public record Fragment(String name, List<String> entities, Integer gpu, Integer cudaDevice,
                           SourceLocation location) {
    }

    /** A connection between fragments; {@code transmitter} and {@code receiver} are {@code entity/component}. */
    public record Edge(String sourceFragment, String transmitter, String targetFragment, String receiver,
                       SourceLocation location) {
    }

    /** A receiver fed from other fragments, with its queue settings. */
    public record RemoteReceiver(String fragment, String receiver, long capacity, long policy) {
    }

    /** Where each remote receiver listens ({@code receiver → host:port}) and what a fragment's receivers bind to. */
    public record Wiring(Map<String, String> endpoints, String bindAddress) {
        /** Wiring with an immutable copy of the endpoints. */
        public Wiring {
            endpoints = Map.copyOf(endpoints);
        }
    }

    /** The app text for one fragment plus the parameter overrides that set addresses, ports and devices. */
    public record FragmentSource(String label, String text, List<String> overrides) {
    }

    private record Comp(String name, String type, Node item, Node typeNode, MappingNode params) {
    }

    private record Doc(Node root, String entity, List<Comp> comps, boolean fragments) {
    }

    private record Conn(Comp comp, Doc doc, String source, String target, String fragment) {
    }

    private final String label;
    private final String text;
    private final int[] codePoints;
    private final List<Doc> docs = new ArrayList<>();
    private final Map<String, Fragment> fragments = new LinkedHashMap<>();
    private final List<String> shared = new ArrayList<>();
    private final Map<String, String> fragmentOf = new LinkedHashMap<>();
    private final Map<String, SourceLocation> entityLocation = new LinkedHashMap<>();
    private final List<Conn> connections = new ArrayList<>();
    private final List<Edge> edges = new ArrayList<>();
    private final Map<String, RemoteReceiver> remoteReceivers = new LinkedHashMap<>();
    private final Map<String, Comp> transmitterComps = new LinkedHashMap<>();
    private Node fragmentsDoc;

    private FragmentPlan(String label, String text) {
        this.label = label;
        this.text = text;
        this.codePoints = text.codePoints().toArray();
    }

    /** Reads an app file with a {@code fragments:} document. */
    public static FragmentPlan read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new GraphLoadException(new SourceLocation(file.toString(), 0), "cannot read the app file: " + e, e);
        }
        return read(file.toString(), text);
    }

    /** Reads app text; {@code label} is the file name used in messages and for relative paths. */
    public static FragmentPlan read(String label, String text) {
        FragmentPlan p = new FragmentPlan(label, text);
        p.parse();
        return p;
    }

    /** True if the text has a {@code fragments:} document (a quick look, for the CLI). */
    public static boolean hasFragments(Path file) throws IOException {
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith("fragments:")) {
                return true;
            }
        }
        return false;
    }

    /** The app file this plan was read from, for messages. */
    public String label() {
        return label;
    }

    /** SHA-256 of the app text: driver and workers check they read the same app. */
    public String digest() {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The fragments, in the order the app names them. */
    public List<Fragment> fragments() {
        return List.copyOf(fragments.values());
    }

    /** The named fragment; an {@code IllegalArgumentException} naming the fragments there are when none has that name. */
    public Fragment fragment(String name) {
        Fragment f = fragments.get(name);
        if (f == null) {
            throw new IllegalArgumentException("no fragment '" + name + "' in " + label + " (fragments: "
                    + fragments.keySet() + ")");
        }
        return f;
    }

    /** The fragments' names, in the order the app names them. */
    public List<String> fragmentNames() {
        return List.copyOf(fragments.keySet());
    }

    /** The entities every fragment gets a copy of (scheduler, clock, device). */
    public List<String> shared() {
        return List.copyOf(shared);
    }

    /** The connections whose ends lie in two fragments: each becomes a network link. */
    public List<Edge> edges() {
        return List.copyOf(edges);
    }

    /** Receivers fed from other fragments (each needs a port), in file order. */
    public List<RemoteReceiver> remoteReceivers() {
        return List.copyOf(remoteReceivers.values());
    }

    /** The fragment an entity belongs to, or null for a shared one. */
    public String fragmentOf(String entity) {
        return fragmentOf.get(entity);
    }

    // ---- parsing -----------------------------------------------------------------------------------------

    private void parse() {
        List<Node> roots = new ArrayList<>();
        try {
            LoadSettings settings = LoadSettings.builder().setLabel(label).build();
            for (Node n : new Compose(settings).composeAllFromString(text)) {
                roots.add(n);
            }
        } catch (MarkedYamlEngineException e) {
            throw new GraphLoadException(at(e.getProblemMark()), "bad YAML: " + oneLine(e.getMessage()), e);
        } catch (YamlEngineException e) {
            throw new GraphLoadException(new SourceLocation(label, 0), "bad YAML: " + oneLine(e.getMessage()), e);
        }
        for (Node root : roots) {
            readDoc(root);
        }
        if (fragmentsDoc == null) {
            throw new GraphLoadException(new SourceLocation(label, 0), "no 'fragments:' document (e.g. "
                    + "'fragments: { a: [entity1], b: [entity2] }' and 'shared: [sched]')");
        }
        readFragments(fragmentsDoc);
        for (Map.Entry<String, SourceLocation> e : entityLocation.entrySet()) {
            if (!fragmentOf.containsKey(e.getKey()) && !shared.contains(e.getKey())) {
                throw new GraphLoadException(e.getValue(), "entity '" + e.getKey() + "' is in no fragment; list it "
                        + "under one fragment in 'fragments:' or under 'shared:' (for schedulers, clocks, devices)");
            }
        }
        Map<String, List<String>> members = new LinkedHashMap<>();
        fragments.keySet().forEach(f -> members.put(f, new ArrayList<>()));
        for (String entity : entityLocation.keySet()) {
            String f = fragmentOf.get(entity);
            if (f == null) {
                members.values().forEach(l -> l.add(entity));
            } else {
                members.get(f).add(entity);
            }
        }
        fragments.replaceAll((n, f) -> new Fragment(n, List.copyOf(members.get(n)), f.gpu(), f.cudaDevice(),
                f.location()));
        readConnections();
    }

    private void readDoc(Node root) {
        if (root instanceof ScalarNode s && s.getValue().isEmpty()) {
            docs.add(new Doc(root, null, List.of(), false));
            return;
        }
        if (!(root instanceof MappingNode map)) {
            throw new GraphLoadException(at(root), "expected an entity document (name:, components:)");
        }
        Map<String, Node> keys = keys(map);
        if (keys.containsKey("fragments")) {
            if (fragmentsDoc != null) {
                throw new GraphLoadException(at(root), "a second 'fragments:' document (the first is at line "
                        + line(fragmentsDoc) + ")");
            }
            fragmentsDoc = root;
            docs.add(new Doc(root, null, List.of(), true));
            return;
        }
        String name = keys.containsKey("name") ? scalar(keys.get("name"), "an entity name") : null;
        List<Comp> comps = new ArrayList<>();
        Node cs = keys.get("components");
        if (cs instanceof SequenceNode seq) {
            boolean flow = seq.getFlowStyle() == FlowStyle.FLOW;
            for (Node item : seq.getValue()) {
                if (!(item instanceof MappingNode im)) {
                    continue; // the loader reports it
                }
                Map<String, Node> ck = keys(im);
                String cname = ck.containsKey("name") ? scalar(ck.get("name"), "a component name") : null;
                String type = ck.containsKey("type") ? scalar(ck.get("type"), "a component type") : null;
                MappingNode params = ck.get("parameters") instanceof MappingNode pm ? pm : null;
                Comp c = new Comp(cname, type, item, ck.get("type"), params);
                if (flow && isConnection(c)) {
                    throw new GraphLoadException(at(item), "write the components of a document with connections "
                            + "as a block list ('- type: Connection' lines), not [ ... ], so fragments can drop one");
                }
                comps.add(c);
            }
        }
        if (name == null) {
            if (!comps.stream().allMatch(FragmentPlan::isConnection)) {
                throw new GraphLoadException(at(root), "an entity without a name cannot be placed in a fragment; "
                        + "give it a 'name'");
            }
        } else {
            if (!NAME.matcher(name).matches()) {
                // names are used in overrides (entity/component/param) and messages
                throw new GraphLoadException(at(keys.get("name")), "entity name '" + name + "' in a fragmented app "
                        + "must be letters, digits, '_', '.' or '-'");
            }
            entityLocation.putIfAbsent(name, at(root));
        }
        docs.add(new Doc(root, name, comps, false));
    }

    private void readFragments(Node root) {
        Map<String, Node> keys = keys((MappingNode) root);
        for (Map.Entry<String, Node> k : keys.entrySet()) {
            if (!k.getKey().equals("fragments") && !k.getKey().equals("shared")) {
                throw new GraphLoadException(at(k.getValue()), "unknown key '" + k.getKey()
                        + "' in the fragments document; expected 'fragments' and 'shared'");
            }
        }
        Map<String, SourceLocation> listedAt = new LinkedHashMap<>();
        Node sh = keys.get("shared");
        if (sh != null && !isNull(sh)) {
            for (Node n : sequence(sh, "'shared' to be a list of entity names").getValue()) {
                String e = entityRef(n, listedAt, "shared");
                shared.add(e);
            }
        }
        if (!(keys.get("fragments") instanceof MappingNode fm) || fm.getValue().isEmpty()) {
            throw new GraphLoadException(at(keys.get("fragments")), "expected 'fragments' to map fragment names to "
                    + "their entities, e.g. 'fragments: { tx: [tx], rx: { entities: [rx], gpu: 0 } }'");
        }
        for (NodeTuple t : fm.getValue()) {
            String fname = scalar(t.getKeyNode(), "a fragment name");
            if (!NAME.matcher(fname).matches()) {
                throw new GraphLoadException(at(t.getKeyNode()), "fragment name '" + fname
                        + "' must be letters, digits, '_', '.' or '-'");
            }
            if (fragments.containsKey(fname)) {
                throw new GraphLoadException(at(t.getKeyNode()), "fragment '" + fname + "' is defined twice");
            }
            Node v = t.getValueNode();
            Node list;
            Integer gpu = null;
            Integer cuda = null;
            if (v instanceof MappingNode vm) {
                Map<String, Node> fk = keys(vm);
                for (Map.Entry<String, Node> k : fk.entrySet()) {
                    if (!Set.of("entities", "gpu", "cuda_device").contains(k.getKey())) {
                        throw new GraphLoadException(at(k.getValue()), "unknown key '" + k.getKey() + "' in fragment '"
                                + fname + "'; expected 'entities', 'gpu' and 'cuda_device'");
                    }
                }
                list = fk.get("entities");
                if (list == null) {
                    throw new GraphLoadException(at(v), "fragment '" + fname + "' has no 'entities' list");
                }
                gpu = index(fk.get("gpu"), "gpu");
                cuda = index(fk.get("cuda_device"), "cuda_device");
            } else {
                list = v;
            }
            List<String> own = new ArrayList<>();
            for (Node n : sequence(list, "fragment '" + fname + "' to list its entities").getValue()) {
                String e = entityRef(n, listedAt, "fragment '" + fname + "'");
                own.add(e);
                fragmentOf.put(e, fname);
            }
            if (own.isEmpty()) {
                throw new GraphLoadException(at(list), "fragment '" + fname + "' has no entities");
            }
            fragments.put(fname, new Fragment(fname, own, gpu, cuda, at(t.getKeyNode())));
        }
    }

    private String entityRef(Node n, Map<String, SourceLocation> listedAt, String where) {
        String e = scalar(n, "an entity name");
        if (!entityLocation.containsKey(e)) {
            throw new GraphLoadException(at(n), where + " lists unknown entity '" + e + "' (entities: "
                    + entityLocation.keySet() + ")");
        }
        SourceLocation before = listedAt.putIfAbsent(e, at(n));
        if (before != null) {
            throw new GraphLoadException(at(n), "entity '" + e + "' is in two places: " + where + " here and line "
                    + before.line() + "; an entity belongs to one fragment (or to 'shared')");
        }
        return e;
    }

    private Integer index(Node n, String key) {
        if (n == null || isNull(n)) {
            return null;
        }
        String s = scalar(n, "a device index");
        try {
            int i = Integer.parseInt(s);
            if (i >= 0) {
                return i;
            }
        } catch (NumberFormatException ignored) {
            // below
        }
        throw new GraphLoadException(at(n), "'" + key + "' must be a device index ≥ 0, got '" + s + "'");
    }

    private void readConnections() {
        Map<String, List<Conn>> bySource = new LinkedHashMap<>();
        Map<String, List<Conn>> byTarget = new LinkedHashMap<>();
        for (Doc d : docs) {
            for (Comp c : d.comps()) {
                if (!isConnection(c)) {
                    continue;
                }
                Node src = param(c, "source");
                Node dst = param(c, "target");
                if (src == null || dst == null) {
                    throw new GraphLoadException(at(c.item()), "a Connection needs 'source' and 'target'");
                }
                String s = handle(src, d);
                String t = handle(dst, d);
                String sf = endFragment(src, s);
                String tf = endFragment(dst, t);
                Conn conn = new Conn(c, d, s, t, sf.equals(tf) ? sf : null);
                connections.add(conn);
                bySource.computeIfAbsent(s, k -> new ArrayList<>()).add(conn);
                byTarget.computeIfAbsent(t, k -> new ArrayList<>()).add(conn);
                if (conn.fragment() == null) {
                    edges.add(new Edge(sf, s, tf, t, at(c.item())));
                }
            }
        }
        for (Edge e : edges) {
            List<Conn> out = bySource.get(e.transmitter());
            if (out.size() > 1) {
                throw new GraphLoadException(e.location(), "transmitter '" + e.transmitter() + "' feeds another "
                        + "fragment and has " + out.size() + " connections; a transmitter to another fragment can "
                        + "have only that one (add a Broadcast codelet in fragment '" + e.sourceFragment() + "')");
            }
            for (Conn c : byTarget.get(e.receiver())) {
                if (c.fragment() != null) {
                    throw new GraphLoadException(e.location(), "receiver '" + e.receiver() + "' is fed from fragment '"
                            + e.sourceFragment() + "' and also from its own fragment (line " + line(c.comp().item())
                            + "); give the local connection its own receiver");
                }
            }
            Comp tx = component(e.transmitter(), e.location());
            Comp rx = component(e.receiver(), e.location());
            checkQueueType(tx, TRANSMITTERS, e.transmitter(), e.location());
            checkQueueType(rx, RECEIVERS, e.receiver(), e.location());
            transmitterComps.put(e.transmitter(), tx);
            remoteReceivers.computeIfAbsent(e.receiver(), r -> new RemoteReceiver(e.targetFragment(), r,
                    longParam(rx, "capacity", 1), longParam(rx, "policy", 2)));
        }
    }

    private String handle(Node n, Doc d) {
        String h = scalar(n, "a handle 'entity/component'");
        if (!h.contains("/")) {
            if (d.entity() == null) {
                throw new GraphLoadException(at(n), "'" + h + "' must be 'entity/component' in a connection entity");
            }
            h = d.entity() + "/" + h;
        }
        return h;
    }

    private String endFragment(Node n, String handle) {
        String entity = handle.substring(0, handle.indexOf('/'));
        if (!entityLocation.containsKey(entity)) {
            throw new GraphLoadException(at(n), "connection to '" + handle + "': no entity '" + entity + "'");
        }
        String f = fragmentOf.get(entity);
        if (f == null) {
            throw new GraphLoadException(at(n), "connection to '" + handle + "': entity '" + entity + "' is shared; "
                    + "connect only entities of fragments");
        }
        return f;
    }

    private Comp component(String handle, SourceLocation where) {
        int slash = handle.indexOf('/');
        String entity = handle.substring(0, slash);
        String name = handle.substring(slash + 1);
        for (Doc d : docs) {
            if (entity.equals(d.entity())) {
                for (Comp c : d.comps()) {
                    if (name.equals(c.name()) && c.type() != null) {
                        return c;
                    }
                }
            }
        }
        throw new GraphLoadException(where, "no component '" + handle + "' (entity '" + entity
                + "' has no component of that name with a 'type')");
    }

    private void checkQueueType(Comp c, Set<String> allowed, String handle, SourceLocation where) {
        String t = stripPrefix(c.type());
        if (!allowed.contains(t)) {
            throw new GraphLoadException(at(c.typeNode()), "'" + handle + "' is connected across fragments (line "
                    + where.line() + ") and is a " + c.type() + "; only " + allowed + " can be carried between "
                    + "fragments");
        }
    }

    private long longParam(Comp c, String key, long dflt) {
        Node n = param(c, key);
        if (n == null || isNull(n)) {
            return dflt;
        }
        try {
            return Long.parseLong(scalar(n, "an integer"));
        } catch (NumberFormatException e) {
            throw new GraphLoadException(at(n), "expected an integer for '" + key + "'");
        }
    }

    private static Node param(Comp c, String key) {
        if (c.params() == null) {
            return null;
        }
        for (NodeTuple t : c.params().getValue()) {
            if (t.getKeyNode() instanceof ScalarNode s && s.getValue().equals(key)) {
                return t.getValueNode();
            }
        }
        return null;
    }

    private static boolean isConnection(Comp c) {
        return c.type() != null && stripPrefix(c.type()).equals("Connection");
    }

    private static String stripPrefix(String type) {
        return type.startsWith(ComponentRegistry.GXF_PREFIX) ? type.substring(ComponentRegistry.GXF_PREFIX.length())
                : type;
    }

    // ---- one fragment's graph ----------------------------------------------------------------------------

    /** The text and overrides the loader reads for {@code fragment}. */
    public FragmentSource source(String fragment, Wiring wiring) {
        Fragment f = fragment(fragment);
        Set<String> members = new LinkedHashSet<>(f.entities());
        record Edit(int start, int end, String replacement) {
        }
        List<Edit> edits = new ArrayList<>();
        List<String> overrides = new ArrayList<>();
        for (Doc d : docs) {
            if (d.fragments() || d.entity() != null && !members.contains(d.entity())) {
                edits.add(new Edit(start(d.root()), end(d.root()), null));
            }
        }
        for (Conn c : connections) {
            if (!fragment.equals(c.fragment()) && (c.doc().entity() == null || members.contains(c.doc().entity()))) {
                int s = start(c.comp().item());
                int i = s - 1;
                while (i >= 0 && (codePoints[i] == ' ' || codePoints[i] == '\t')) {
                    i--;
                }
                if (i >= 0 && codePoints[i] == '-') {
                    s = i;
                }
                edits.add(new Edit(s, end(c.comp().item()), null));
            }
        }
        boolean transport = false;
        for (Edge e : edges) {
            if (e.sourceFragment().equals(fragment)) {
                Comp tx = transmitterComps.get(e.transmitter());
                edits.add(new Edit(start(tx.typeNode()), end(tx.typeNode()), UCX_TRANSMITTER));
                String endpoint = wiring.endpoints().get(e.receiver());
                if (endpoint == null) {
                    throw new IllegalArgumentException("no address for receiver '" + e.receiver() + "'");
                }
                int colon = endpoint.lastIndexOf(':');
                RemoteReceiver rr = remoteReceivers.get(e.receiver());
                overrides.add(e.transmitter() + "/receiver_address=" + endpoint.substring(0, colon));
                overrides.add(e.transmitter() + "/port=" + endpoint.substring(colon + 1));
                overrides.add(e.transmitter() + "/capacity=" + longParam(tx, "capacity", 1));
                overrides.add(e.transmitter() + "/policy=" + longParam(tx, "policy", 2));
                transport = true;
                if (rr == null) {
                    throw new IllegalStateException(e.receiver());
                }
            }
        }
        for (RemoteReceiver rr : remoteReceivers.values()) {
            if (rr.fragment().equals(fragment)) {
                Comp rx = component(rr.receiver(), null);
                edits.add(new Edit(start(rx.typeNode()), end(rx.typeNode()), UCX_RECEIVER));
                String endpoint = wiring.endpoints().get(rr.receiver());
                if (endpoint == null) {
                    throw new IllegalArgumentException("no port for receiver '" + rr.receiver() + "'");
                }
                overrides.add(rr.receiver() + "/address=" + wiring.bindAddress());
                overrides.add(rr.receiver() + "/port=" + endpoint.substring(endpoint.lastIndexOf(':') + 1));
                overrides.add(rr.receiver() + "/capacity=" + rr.capacity());
                overrides.add(rr.receiver() + "/policy=" + rr.policy());
                transport = true;
            }
        }
        edits.sort((a, b) -> Integer.compare(a.start(), b.start()));
        StringBuilder sb = new StringBuilder(text.length() + 256);
        int pos = 0;
        for (Edit e : edits) {
            if (e.start() < pos) {
                continue; // inside a document already blanked
            }
            sb.append(new String(codePoints, pos, e.start() - pos));
            if (e.replacement() == null) {
                for (int i = e.start(); i < e.end(); i++) {
                    int c = codePoints[i];
                    sb.append(c == '\n' || c == '\r' ? (char) c : ' ');
                }
            } else {
                sb.append(e.replacement());
            }
            pos = e.end();
        }
        sb.append(new String(codePoints, pos, codePoints.length - pos));
        if (transport) {
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != '\n') {
                sb.append('\n');
            }
            sb.append("---\n# added for fragment '").append(fragment).append("': the transport to other fragments\n")
                    .append("name: ").append(TRANSPORT_ENTITY).append('\n')
                    .append("components:\n")
                    .append("- name: allocator\n  type: nvidia::gxf::UnboundedAllocator\n")
                    .append("- name: component_serializer\n  type: nvidia::gxf::UcxComponentSerializer\n")
                    .append("  parameters: { allocator: allocator }\n")
                    .append("- name: entity_serializer\n  type: ").append(UCX_SERIALIZER).append('\n')
                    .append("  parameters: { component_serializers: [component_serializer] }\n")
                    .append("- name: context\n  type: ").append(UCX_CONTEXT).append('\n')
                    .append("  parameters: { serializer: entity_serializer }\n");
        }
        if (f.gpu() != null) {
            for (String entity : members) {
                for (Comp c : componentsOf(entity)) {
                    if (c.type() != null && stripPrefix(c.type()).equals("VulkanDevice") && c.name() != null) {
                        overrides.add(entity + "/" + c.name() + "/device_index=" + f.gpu());
                    }
                }
            }
        }
        if (f.cudaDevice() != null) {
            for (String entity : members) {
                for (Comp c : componentsOf(entity)) {
                    if (c.type() != null && stripPrefix(c.type()).equals("GPUDevice") && c.name() != null) {
                        overrides.add(entity + "/" + c.name() + "/dev_id=" + f.cudaDevice());
                    }
                }
            }
        }
        return new FragmentSource(label, sb.toString(), List.copyOf(overrides));
    }

    private List<Comp> componentsOf(String entity) {
        List<Comp> out = new ArrayList<>();
        for (Doc d : docs) {
            if (entity.equals(d.entity())) {
                out.addAll(d.comps());
            }
        }
        return out;
    }

    /**
     * Loads and activates {@code fragment}'s graph. {@code params} ({@code entity/component/parameter=value}) that
     * name an entity of another fragment are skipped.
     */
    public Graph load(String fragment, Wiring wiring, List<Path> manifests, List<String> params) {
        FragmentSource src = source(fragment, wiring);
        Set<String> members = Set.copyOf(fragment(fragment).entities());
        ComponentRegistry registry = ComponentRegistry.standard();
        for (Path m : manifests) {
            registry.loadManifest(m);
        }
        Graph g = Graph.create(registry);
        try {
            YamlGraphReader reader = new YamlGraphReader(g);
            reader.read(src.label(), src.text());
            for (String o : src.overrides()) {
                reader.override(o);
            }
            for (String p : params) {
                int slash = p.indexOf('/');
                if (slash < 0 || members.contains(p.substring(0, slash))) {
                    reader.override(p);
                }
            }
            g.activate();
            return g;
        } catch (RuntimeException e) {
            g.close();
            throw e;
        }
    }

    // ---- helpers -----------------------------------------------------------------------------------------

    private Map<String, Node> keys(MappingNode map) {
        Map<String, Node> out = new LinkedHashMap<>();
        for (NodeTuple t : map.getValue()) {
            String k = scalar(t.getKeyNode(), "a key");
            if (out.put(k, t.getValueNode()) != null) {
                throw new GraphLoadException(at(t.getKeyNode()), "duplicate key '" + k + "'");
            }
        }
        return out;
    }

    private SequenceNode sequence(Node n, String expected) {
        if (n instanceof SequenceNode s) {
            return s;
        }
        throw new GraphLoadException(at(n), "expected " + expected);
    }

    private String scalar(Node n, String expected) {
        if (n instanceof ScalarNode s && !s.getTag().equals(Tag.NULL)) {
            return s.getValue();
        }
        throw new GraphLoadException(n == null ? new SourceLocation(label, 0) : at(n), "expected " + expected);
    }

    private static boolean isNull(Node n) {
        return n instanceof ScalarNode s && s.getTag().equals(Tag.NULL);
    }

    private static int start(Node n) {
        return n.getStartMark().map(Mark::getIndex).orElseThrow();
    }

    private static int end(Node n) {
        return n.getEndMark().map(Mark::getIndex).orElseThrow();
    }

    private static int line(Node n) {
        return n.getStartMark().map(m -> m.getLine() + 1).orElse(0);
    }

    private SourceLocation at(Node n) {
        return at(n.getStartMark());
    }

    private SourceLocation at(Optional<Mark> mark) {
        return new SourceLocation(label, mark.map(m -> m.getLine() + 1).orElse(0));
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replace('\n', ' ').replaceAll(" +", " ").trim();
    }
}
