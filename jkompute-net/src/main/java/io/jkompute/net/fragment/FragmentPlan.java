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
import java.util.Collections;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.api.StreamDataWriter;
import org.snakeyaml.engine.v2.common.FlowStyle;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
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
 * still resolve), same capacity and policy; addresses and ports come from the driver ({@link Wiring}). The app is
 * composed once into SnakeYAML documents and a fragment's graph is read from its own documents,
 * derived from those; nodes taken from the app keep their marks, so a fragment's load errors name the app file and
 * line, as the plan's own errors do.
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
    /** The double-buffer queues' defaults, which a link keeps. */
    private static final long QUEUE_CAPACITY = 1;
    private static final long QUEUE_POLICY = 2;

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

    /**
     * One fragment's app: the documents the loader reads, one node per YAML document; {@code label} names the app
     * file the nodes' marks point into. Nodes the fragment leaves as they are belong to the plan: read, not changed.
     */
    record FragmentDocuments(String label, List<Node> documents) {
        /** Documents with an immutable copy of the list. */
        FragmentDocuments {
            documents = List.copyOf(documents);
        }

        /** The documents as YAML text, to show what a fragment runs (the app's comments and layout are not kept). */
        String yaml() {
            StringBuilder out = new StringBuilder();
            StreamDataWriter writer = new StreamDataWriter() {
                @Override
                public void write(String str) {
                    out.append(str);
                }

                @Override
                public void write(String str, int off, int len) {
                    out.append(str, off, off + len);
                }
            };
            Dump dump = new Dump(DumpSettings.builder().setExplicitStart(true).build());
            for (Node d : documents) {
                dump.dumpNode(d, writer);
            }
            return out.toString();
        }
    }

    private record Comp(String name, String type, MappingNode item, Node typeNode, MappingNode params) {
    }

    /** A document; {@code components} is its list of components, null when it has none. */
    private record Doc(Node root, String entity, SequenceNode components, List<Comp> comps, boolean fragments) {
    }

    private record Conn(Comp comp, Doc doc, String source, String target, String fragment) {
    }

    /** The nodes of a fragment's {@code gpu} and {@code cuda_device}, or null: the devices' values point at them. */
    private record GpuNodes(Node gpu, Node cudaDevice) {
    }

    private final String label;
    private final String text;
    private final List<Doc> docs = new ArrayList<>();
    private final Map<String, Fragment> fragments = new LinkedHashMap<>();
    private final List<String> shared = new ArrayList<>();
    private final Map<String, String> fragmentOf = new LinkedHashMap<>();
    private final Map<String, SourceLocation> entityLocation = new LinkedHashMap<>();
    private final List<Conn> connections = new ArrayList<>();
    private final List<Edge> edges = new ArrayList<>();
    private final Map<String, RemoteReceiver> remoteReceivers = new LinkedHashMap<>();
    private final Map<String, Comp> transmitters = new LinkedHashMap<>();
    /** Per queue of a link ({@code entity/component}), where its cross-fragment connection is, for its parameters. */
    private final Map<String, Optional<Mark>> linkMarks = new LinkedHashMap<>();
    private final Map<String, GpuNodes> gpuNodes = new LinkedHashMap<>();
    private Node fragmentsDoc;

    private FragmentPlan(String label, String text) {
        this.label = label;
        this.text = text;
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
        for (Node root : YamlGraphReader.compose(label, text)) {
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
            docs.add(new Doc(root, null, null, List.of(), false));
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
            docs.add(new Doc(root, null, null, List.of(), true));
            return;
        }
        String name = keys.containsKey("name") ? scalar(keys.get("name"), "an entity name") : null;
        List<Comp> comps = new ArrayList<>();
        SequenceNode list = keys.get("components") instanceof SequenceNode seq ? seq : null;
        if (list != null) {
            for (Node item : list.getValue()) {
                if (!(item instanceof MappingNode im)) {
                    continue; // the loader reports it
                }
                Map<String, Node> ck = keys(im);
                String cname = ck.containsKey("name") ? scalar(ck.get("name"), "a component name") : null;
                String type = ck.containsKey("type") ? scalar(ck.get("type"), "a component type") : null;
                MappingNode params = ck.get("parameters") instanceof MappingNode pm ? pm : null;
                comps.add(new Comp(cname, type, im, ck.get("type"), params));
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
        docs.add(new Doc(root, name, list, comps, false));
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
        if (!isAbsent(sh)) {
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
            GpuNodes nodes = new GpuNodes(null, null);
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
                nodes = new GpuNodes(gpu == null ? null : fk.get("gpu"),
                        cuda == null ? null : fk.get("cuda_device"));
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
            gpuNodes.put(fname, nodes);
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
        if (isAbsent(n)) {
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
                    linkMarks.put(s, c.item().getStartMark());
                    linkMarks.putIfAbsent(t, c.item().getStartMark());
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
            transmitters.put(e.transmitter(), tx);
            remoteReceivers.computeIfAbsent(e.receiver(), r -> new RemoteReceiver(e.targetFragment(), r,
                    longParam(rx, "capacity", QUEUE_CAPACITY), longParam(rx, "policy", QUEUE_POLICY)));
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
        if (isAbsent(n)) {
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

    /**
     * {@code fragment}'s documents: the app's documents of its entities and the shared ones, without the other
     * fragments' documents and without the connections that are not its own; its queues to and from other fragments
     * retyped as the transport's, with the {@code wiring}'s addresses and ports and their capacity and policy as
     * parameters; its devices on its GPU; and the transport's entity when it has links. Nodes taken from the app keep
     * their marks, so load errors name the app file and line; the app's nodes are never changed (an edited node is a
     * copy), so each call gives an independent result.
     */
    FragmentDocuments documents(String fragment, Wiring wiring) {
        Fragment f = fragment(fragment);
        Set<String> members = Set.copyOf(f.entities());
        Set<Node> dropped = Collections.newSetFromMap(new IdentityHashMap<>());
        Map<Node, Node> replaced = new IdentityHashMap<>();
        for (Conn c : connections) {
            if (!fragment.equals(c.fragment())) {
                dropped.add(c.comp().item());
            }
        }
        boolean transport = false;
        for (Edge e : edges) {
            if (e.sourceFragment().equals(fragment)) {
                String endpoint = wiring.endpoints().get(e.receiver());
                if (endpoint == null) {
                    throw new IllegalArgumentException("no address for receiver '" + e.receiver() + "'");
                }
                int colon = endpoint.lastIndexOf(':');
                Comp tx = transmitters.get(e.transmitter());
                Optional<Mark> link = linkMarks.get(e.transmitter());
                Map<String, Node> parameters = new LinkedHashMap<>();
                parameters.put("receiver_address", string(endpoint.substring(0, colon), link));
                parameters.put("port", integer(endpoint.substring(colon + 1), link));
                queueDefaults(tx, parameters, link);
                replaced.put(tx.item(), withTypeAndParameters(tx, UCX_TRANSMITTER, parameters));
                transport = true;
            }
        }
        for (RemoteReceiver rr : remoteReceivers.values()) {
            if (rr.fragment().equals(fragment)) {
                String endpoint = wiring.endpoints().get(rr.receiver());
                if (endpoint == null) {
                    throw new IllegalArgumentException("no port for receiver '" + rr.receiver() + "'");
                }
                Comp rx = component(rr.receiver(), null);
                Optional<Mark> link = linkMarks.get(rr.receiver());
                Map<String, Node> parameters = new LinkedHashMap<>();
                parameters.put("address", string(wiring.bindAddress(), link));
                parameters.put("port", integer(endpoint.substring(endpoint.lastIndexOf(':') + 1), link));
                queueDefaults(rx, parameters, link);
                replaced.put(rx.item(), withTypeAndParameters(rx, UCX_RECEIVER, parameters));
                transport = true;
            }
        }
        GpuNodes nodes = gpuNodes.get(fragment);
        for (String entity : f.entities()) {
            for (Comp c : componentsOf(entity)) {
                if (nodes.gpu() != null && isNamed(c, "VulkanDevice")) {
                    replaced.put(c.item(), withTypeAndParameters(c, null, Map.of("device_index",
                            integer(Integer.toString(f.gpu()), nodes.gpu().getStartMark()))));
                }
                if (nodes.cudaDevice() != null && isNamed(c, "GPUDevice")) {
                    replaced.put(c.item(), withTypeAndParameters(c, null, Map.of("dev_id",
                            integer(Integer.toString(f.cudaDevice()), nodes.cudaDevice().getStartMark()))));
                }
            }
        }
        List<Node> out = new ArrayList<>();
        for (Doc d : docs) {
            boolean empty = d.root() instanceof ScalarNode;
            if (d.fragments() || empty || d.entity() != null && !members.contains(d.entity())) {
                continue;
            }
            if (d.entity() == null && d.components() != null && !d.components().getValue().isEmpty()
                    && dropped.containsAll(d.components().getValue())) {
                continue; // a connection entity with none of this fragment's connections: nothing to add
            }
            out.add(withComponents(d, dropped, replaced));
        }
        if (transport) {
            out.add(transportEntity());
        }
        return new FragmentDocuments(label, out);
    }

    /**
     * The named VulkanDevice components ({@code entity/component}) of {@code fragment}'s entities: those its
     * {@code gpu:} places, which {@code --gpu-fallback} moves to device 0.
     */
    List<String> vulkanDevices(String fragment) {
        List<String> out = new ArrayList<>();
        for (String entity : fragment(fragment).entities()) {
            for (Comp c : componentsOf(entity)) {
                if (isNamed(c, "VulkanDevice")) {
                    out.add(entity + "/" + c.name());
                }
            }
        }
        return out;
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

    /** A named component of {@code type}: the devices a fragment's placement sets (an unnamed one keeps its own). */
    private static boolean isNamed(Comp c, String type) {
        return c.type() != null && c.name() != null && stripPrefix(c.type()).equals(type);
    }

    /** The queue's default capacity and policy where the app leaves them out: the transport's defaults differ. */
    private static void queueDefaults(Comp queue, Map<String, Node> parameters, Optional<Mark> link) {
        if (isAbsent(param(queue, "capacity"))) {
            parameters.put("capacity", integer(Long.toString(QUEUE_CAPACITY), link));
        }
        if (isAbsent(param(queue, "policy"))) {
            parameters.put("policy", integer(Long.toString(QUEUE_POLICY), link));
        }
    }

    /** The document with its dropped components left out and its replaced ones swapped; itself when neither. */
    private static Node withComponents(Doc d, Set<Node> dropped, Map<Node, Node> replaced) {
        if (d.comps().stream().noneMatch(c -> dropped.contains(c.item()) || replaced.containsKey(c.item()))) {
            return d.root();
        }
        MappingNode root = (MappingNode) d.root();
        SequenceNode seq = d.components();
        List<NodeTuple> tuples = new ArrayList<>();
        for (NodeTuple t : root.getValue()) {
            if (t.getValueNode() == seq) {
                List<Node> items = new ArrayList<>();
                for (Node item : seq.getValue()) {
                    if (!dropped.contains(item)) {
                        items.add(replaced.getOrDefault(item, item));
                    }
                }
                tuples.add(new NodeTuple(t.getKeyNode(), new SequenceNode(seq.getTag(), true, items,
                        seq.getFlowStyle(), seq.getStartMark(), seq.getEndMark())));
            } else {
                tuples.add(t);
            }
        }
        return new MappingNode(root.getTag(), true, tuples, root.getFlowStyle(), root.getStartMark(),
                root.getEndMark());
    }

    /**
     * A copy of the component with its type replaced ({@code type} non-null; the new type keeps the old one's mark)
     * and {@code parameters} set, each replacing the app's value of that name or added after them.
     */
    private static MappingNode withTypeAndParameters(Comp c, String type, Map<String, Node> parameters) {
        List<NodeTuple> tuples = new ArrayList<>();
        boolean hasParameters = false;
        for (NodeTuple t : c.item().getValue()) {
            if (type != null && isKey(t, "type")) {
                tuples.add(new NodeTuple(t.getKeyNode(), new ScalarNode(Tag.STR, true, type, ScalarStyle.PLAIN,
                        t.getValueNode().getStartMark(), t.getValueNode().getEndMark())));
            } else if (isKey(t, "parameters")) {
                hasParameters = true;
                boolean map = c.params() != null || isNull(t.getValueNode());
                // anything else is not a map of parameters: kept for the loader to report with its line
                tuples.add(map ? new NodeTuple(t.getKeyNode(), withParameters(c.params(), parameters)) : t);
            } else {
                tuples.add(t);
            }
        }
        if (!hasParameters) {
            tuples.add(new NodeTuple(string("parameters", Optional.empty()), withParameters(null, parameters)));
        }
        return new MappingNode(c.item().getTag(), true, tuples, c.item().getFlowStyle(), c.item().getStartMark(),
                c.item().getEndMark());
    }

    private static MappingNode withParameters(MappingNode given, Map<String, Node> parameters) {
        Map<String, Node> rest = new LinkedHashMap<>(parameters);
        List<NodeTuple> tuples = new ArrayList<>();
        if (given != null) {
            for (NodeTuple t : given.getValue()) {
                Node value = t.getKeyNode() instanceof ScalarNode k ? rest.remove(k.getValue()) : null;
                tuples.add(value == null ? t : new NodeTuple(t.getKeyNode(), value));
            }
        }
        rest.forEach((k, v) -> tuples.add(new NodeTuple(string(k, Optional.empty()), v)));
        return given == null
                ? new MappingNode(Tag.MAP, true, tuples, FlowStyle.FLOW, Optional.empty(), Optional.empty())
                : new MappingNode(given.getTag(), true, tuples, given.getFlowStyle(), given.getStartMark(),
                        given.getEndMark());
    }

    /** The entity that holds the transport's context, for a fragment with links. */
    private static MappingNode transportEntity() {
        Optional<Mark> none = Optional.empty();
        List<Node> components = List.of(
                componentNode("allocator", "nvidia::gxf::UnboundedAllocator", Map.of()),
                componentNode("component_serializer", "nvidia::gxf::UcxComponentSerializer",
                        Map.of("allocator", string("allocator", none))),
                componentNode("entity_serializer", UCX_SERIALIZER, Map.of("component_serializers",
                        new SequenceNode(Tag.SEQ, true, List.of(string("component_serializer", none)),
                                FlowStyle.FLOW, none, none))),
                componentNode("context", UCX_CONTEXT, Map.of("serializer", string("entity_serializer", none))));
        return new MappingNode(Tag.MAP, true, List.of(
                new NodeTuple(string("name", none), string(TRANSPORT_ENTITY, none)),
                new NodeTuple(string("components", none),
                        new SequenceNode(Tag.SEQ, true, components, FlowStyle.BLOCK, none, none))),
                FlowStyle.BLOCK, none, none);
    }

    private static MappingNode componentNode(String name, String type, Map<String, Node> parameters) {
        Optional<Mark> none = Optional.empty();
        List<NodeTuple> tuples = new ArrayList<>(List.of(new NodeTuple(string("name", none), string(name, none)),
                new NodeTuple(string("type", none), string(type, none))));
        if (!parameters.isEmpty()) {
            tuples.add(new NodeTuple(string("parameters", none), withParameters(null, parameters)));
        }
        return new MappingNode(Tag.MAP, true, tuples, FlowStyle.BLOCK, none, none);
    }

    private static ScalarNode string(String value, Optional<Mark> at) {
        return new ScalarNode(Tag.STR, true, value, ScalarStyle.PLAIN, at, at);
    }

    private static ScalarNode integer(String value, Optional<Mark> at) {
        return new ScalarNode(Tag.INT, true, value, ScalarStyle.PLAIN, at, at);
    }

    private static boolean isKey(NodeTuple t, String key) {
        return t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key);
    }

    /**
     * Loads and activates {@code fragment}'s graph. {@code params} ({@code entity/component/parameter=value}) that
     * name an entity of another fragment are skipped.
     */
    public Graph load(String fragment, Wiring wiring, List<Path> manifests, List<String> params) {
        FragmentDocuments documents = documents(fragment, wiring);
        Set<String> members = Set.copyOf(fragment(fragment).entities());
        ComponentRegistry registry = ComponentRegistry.standard();
        for (Path m : manifests) {
            registry.loadManifest(m);
        }
        Graph g = Graph.create(registry);
        try {
            YamlGraphReader reader = new YamlGraphReader(g);
            reader.read(documents.label(), documents.documents());
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

    private static boolean isAbsent(Node n) {
        return n == null || isNull(n);
    }

    private static int line(Node n) {
        return n.getStartMark().map(m -> m.getLine() + 1).orElse(0);
    }

    private SourceLocation at(Node n) {
        return new SourceLocation(label, line(n));
    }
}
