package io.jkompute.net.fragment;


import io.jkompute.graph.CodeletStatistics;
import io.jkompute.graph.EntityStatistics;
import io.jkompute.graph.GraphException;
import io.jkompute.graph.JobStatistics;
import io.jkompute.graph.StopReason;
import io.jkompute.net.NetSecret;
import io.jkompute.net.NetStatistics;
import io.jkompute.net.internal.ChildJvm;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The driver of a fragmented app (Holoscan's App Driver): workers register (the driver starts one JVM per local
 * fragment itself and waits for the others to join), the driver assigns fragments to workers and the receivers'
 * ports, all load, all start, and the app ends as one: when every fragment has ended the driver stops the workers
 * and prints every fragment's result and the statistics of all of them; when a fragment fails (load error, codelet
 * exception) or a worker is lost (no message for {@value FragmentWorker#LOST_MS} ms; heartbeats every
 * {@value FragmentWorker#HEARTBEAT_MS} ms) it stops the others and fails with an error naming the fragment.
 */
public final class FragmentDriver {
    /** The main class of a worker JVM the driver starts on its own host. */
    public static final String WORKER_MAIN = "io.jkompute.net.fragment.FragmentWorker";

    /**
     * What a driver runs: the app, where it listens, which fragments it starts itself, and where it reports.
     *
     * @param address host to listen on (127.0.0.1 unless the user asks for another; 0.0.0.0: every interface)
     * @param port control port (Holoscan's default 57777)
     * @param localFragments fragments the driver starts a worker JVM for on this host; the rest wait for
     *                       {@code --worker}s
     * @param registerTimeout how long to wait for workers to register
     * @param gpuFallback a fragment placed on a GPU this host lacks runs on device 0 (with a warning) instead of
     *                    failing
     */
    public record Options(Path app, String address, int port, List<String> localFragments, List<Path> manifests,
                          List<String> params, Duration registerTimeout, boolean gpuFallback, PrintStream out,
                          PrintStream err) {
        /** Options with immutable copies of the lists. */
        public Options {
            localFragments = List.copyOf(localFragments);
            manifests = List.copyOf(manifests);
            params = List.copyOf(params);
        }
    }

    /** One fragment's end: a stop reason and statistics, or an error. */
    public record FragmentResult(String fragment, String worker, StopReason reason, String detail, long durationNs,
                                 JobStatistics statistics, String error) {
    }

    /** The app's end: exit code 0 when every fragment ended without error; the error names the fragment. */
    public record AppResult(int exitCode, String error, List<FragmentResult> fragments, JobStatistics statistics,
                            long durationNs) {
        /** True when every fragment ended without error (exit code 0). */
        public boolean ok() {
            return exitCode == 0;
        }

        /** The named fragment's result, or null. */
        public FragmentResult fragment(String name) {
            return fragments.stream().filter(f -> f.fragment().equals(name)).findFirst().orElse(null);
        }

        /** Each fragment's line, then the statistics of every entity of every fragment as one table. */
        public String report() {
            StringBuilder sb = new StringBuilder();
            for (FragmentResult f : fragments) {
                sb.append(String.format(Locale.ROOT, "fragment %-12s on %-28s ", f.fragment(), f.worker()));
                if (f.error() != null) {
                    sb.append("FAILED: ").append(f.error()).append('\n');
                } else {
                    sb.append(f.reason()).append(String.format(Locale.ROOT, " after %.3f ms%n", f.durationNs() / 1e6));
                }
            }
            sb.append(String.format(Locale.ROOT, "app %s after %.3f ms%n", exitCode == 0 ? "completed" : "failed",
                    durationNs / 1e6));
            if (statistics != null) {
                sb.append(statistics.toTable());
            }
            return sb.toString();
        }
    }

    /** Where the run is: for tests and messages. */
    public enum Phase {
        /** Before the driver waits for workers. */
        STARTING,
        /** Waiting for workers to register until every fragment has one. */
        REGISTERING,
        /** The workers load their fragments. */
        LOADING,
        /** The fragments run. */
        RUNNING,
        /** Stopping the workers: the app ended, a fragment failed, or the run was interrupted. */
        STOPPING,
        /** Every worker said goodbye, or the stop deadline passed. */
        DONE
    }

    private static final class Worker {
        final String id;
        final String control;
        final String address;
        final List<Integer> ports;
        final List<String> fragments = new ArrayList<>();
        final Deque<Control> outbox = new ArrayDeque<>();
        long lastHeard;
        boolean bye;
        boolean gone;

        Worker(String id, String control, String address, List<Integer> ports) {
            this.id = id;
            this.control = control;
            this.address = address;
            this.ports = ports;
        }
    }

    private final Options o;
    private final Map<String, Worker> workers = new LinkedHashMap<>();
    private final Map<String, Worker> assigned = new LinkedHashMap<>();
    private final Set<String> loaded = new HashSet<>();
    private final Map<String, FragmentResult> results = new LinkedHashMap<>();
    private LocalWorkers local;
    private final ConcurrentLinkedQueue<ControlChannel.Received> inbox = new ConcurrentLinkedQueue<>();
    private long rejectedNoted;
    private long lastRejectNote;
    private volatile Phase phase = Phase.STARTING;
    private final List<NetStatistics.Link> links = new ArrayList<>();
    private FragmentPlan plan;
    private String error;
    private int exitCode;
    private long runStart;
    private long stopDeadline;
    private volatile long lostDetectedAfterMs = -1;

    /** A driver for one run of the app in {@code options}; {@link #run()} starts it. */
    public FragmentDriver(Options options) {
        this.o = options;
    }

    /** Where the run is now. */
    public Phase phase() {
        return phase;
    }

    /** How long the last lost worker had been silent when the driver gave it up (ms), or -1. */
    public long lostDetectedAfterMs() {
        return lostDetectedAfterMs;
    }

    /** The process of the worker the driver started for a local fragment, or null. */
    public Process localWorker(String fragment) {
        LocalWorkers l = local;
        return l == null ? null : l.process(fragment);
    }

    /** Runs the app to its end (or its first failure); never waits longer than the timeouts. */
    public AppResult run() {
        long t0 = System.nanoTime();
        try {
            plan = FragmentPlan.read(o.app());
            for (String f : o.localFragments()) {
                plan.fragment(f);
            }
        } catch (GraphException | IllegalArgumentException e) {
            return new AppResult(2, e.getMessage(), List.of(), null, System.nanoTime() - t0);
        }
        String bind = o.address() + ":" + o.port();
        ControlChannel ch;
        try {
            NetSecret secret = NetSecret.get();
            o.err().println("driver: control messages and links are authenticated with the secret in "
                    + secret.source() + (secret.created() ? " (made now)" : "") + ", fingerprint "
                    + secret.fingerprint() + "; a worker on another host needs the same secret: copy "
                    + (secret.source().startsWith("the file ") ? secret.source().substring(9) : "it")
                    + " there (mode 0600) or set " + NetSecret.ENV + " in its environment");
            ch = new ControlChannel(bind, "driver");
        } catch (RuntimeException e) {
            return new AppResult(3, "cannot listen on " + bind + ": " + e.getMessage(), List.of(), null,
                    System.nanoTime() - t0);
        }
        local = new LocalWorkers(o.app(), o.manifests(), o.params(), o.err());
        LocalWorkers children = local;
        Thread killChildren = new Thread(children::kill, "jkompute-driver-cleanup");
        Runtime.getRuntime().addShutdownHook(killChildren);
        try (ch) {
            String connect = (o.address().equals("0.0.0.0") || o.address().equals("::") ? "127.0.0.1" : o.address())
                    + ":" + o.port();
            for (String f : o.localFragments()) {
                try {
                    local.start(f, connect);
                } catch (IOException e) {
                    fail(3, "cannot start a worker for fragment '" + f + "': " + e.getMessage());
                }
            }
            loop(ch);
        } finally {
            local.reap();
            try {
                Runtime.getRuntime().removeShutdownHook(killChildren);
            } catch (IllegalStateException exiting) {
                // the hook runs
            }
        }
        List<FragmentResult> list = new ArrayList<>();
        List<EntityStatistics> entities = new ArrayList<>();
        long longest = 0;
        Set<String> names = new HashSet<>();
        for (String f : plan.fragmentNames()) {
            FragmentResult r = results.get(f);
            if (r == null) {
                Worker w = assigned.get(f);
                r = new FragmentResult(f, w == null ? "(no worker)" : w.id, null, null, 0, null,
                        error != null ? "stopped: another fragment failed" : "no result");
            }
            list.add(r);
            if (r.statistics() != null) {
                longest = Math.max(longest, r.durationNs());
                for (EntityStatistics e : r.statistics().entities()) {
                    entities.add(names.add(e.entity()) ? e : rename(e, f + ":" + e.entity()));
                }
            }
        }
        return new AppResult(error == null ? 0 : exitCode, error, list, new JobStatistics(longest, entities),
                System.nanoTime() - t0);
    }

    private void loop(ControlChannel ch) {
        phase = Phase.REGISTERING;
        long start = System.nanoTime();
        long lastBeat = 0;
        long lastWaitNote = start;
        Control beat = new Control.Heartbeat("driver");
        while (true) {
            ch.poll(inbox::add);
            ControlChannel.Received r;
            while ((r = inbox.poll()) != null) {
                switch (r) {
                    case ControlChannel.Taken t -> {
                        try {
                            handle(ch, t.message());
                        } catch (RuntimeException e) {
                            // a genuine worker's message that makes no sense here (or statistics that do not parse)
                            fail(1, "protocol violation by a worker: " + e.getMessage());
                        }
                    }
                    case ControlChannel.Violation v -> fail(1, "protocol violation by a worker: " + v.error());
                }
            }
            long now = System.nanoTime();
            noteRejections(ch, now);
            if (now - lastBeat >= TimeUnit.MILLISECONDS.toNanos(FragmentWorker.HEARTBEAT_MS)) {
                lastBeat = now;
                for (Worker w : workers.values()) {
                    if (!w.gone && !w.bye) {
                        ch.send(w.control, w.id, beat);
                    }
                }
            }
            for (Worker w : workers.values()) {
                while (!w.gone && !w.outbox.isEmpty() && ch.send(w.control, w.id, w.outbox.peek())) {
                    w.outbox.poll();
                }
            }
            checkLiveness(now);
            switch (phase) {
                case REGISTERING -> {
                    if (assigned.size() == plan.fragmentNames().size()) {
                        assign();
                    } else if (now - start > o.registerTimeout().toNanos()) {
                        fail(3, "no worker registered for fragment(s) " + unassigned() + " within "
                                + o.registerTimeout().toSeconds() + " s (start them with: jkompute run " + o.app()
                                + " --worker --fragments NAME --driver HOST:" + o.port() + ")");
                    } else if (now - lastWaitNote > TimeUnit.SECONDS.toNanos(5)) {
                        lastWaitNote = now;
                        o.err().println("driver: waiting for workers for fragment(s) " + unassigned() + " on port "
                                + o.port());
                    }
                }
                case LOADING -> {
                    if (loaded.size() == plan.fragmentNames().size()) {
                        phase = Phase.RUNNING;
                        runStart = System.nanoTime();
                        for (Worker w : liveWorkers()) {
                            w.outbox.add(new Control.Start());
                        }
                    }
                }
                case RUNNING -> {
                    if (results.size() == plan.fragmentNames().size()) {
                        stopAll(false, "the app ended");
                    }
                }
                case STOPPING -> {
                    boolean allGone = liveWorkers().stream().allMatch(w -> w.bye);
                    if (allGone || now > stopDeadline) {
                        phase = Phase.DONE;
                        return;
                    }
                }
                default -> {
                    return;
                }
            }
            FragmentWorker.sleep();
        }
    }

    /** Says (at most once a second) how many control messages were dropped as not from this app's processes. */
    private void noteRejections(ControlChannel ch, long now) {
        long n = ch.rejected();
        if (n != rejectedNoted && now - lastRejectNote > TimeUnit.SECONDS.toNanos(1)) {
            rejectedNoted = n;
            lastRejectNote = now;
            o.err().println("driver: dropped " + n + " control message(s) so far that were not from this app's "
                    + "processes; the last: " + ch.lastRejection());
        }
    }

    /** Control messages dropped because they were not from a process holding the secret (or were replays). */
    public long rejectedMessages() {
        return rejectedNoted;
    }

    private void handle(ControlChannel ch, Control c) {
        String id = switch (c) {
            case Control.Register r -> r.id();
            case Control.Loaded l -> l.id();
            case Control.Done d -> d.id();
            case Control.Failed f -> f.id();
            case Control.Bye b -> b.id();
            case Control.Heartbeat h -> h.id();
            default -> null;
        };
        Worker w = id == null ? null : workers.get(id);
        if (w != null) {
            w.lastHeard = System.nanoTime();
        }
        switch (c) {
            case Control.Register r -> register(ch, r, w);
            case Control.Loaded l -> {
                if (w != null && w.fragments.contains(l.fragment())) {
                    loaded.add(l.fragment());
                }
            }
            case Control.Failed f -> {
                runsIt(w, id, f.fragment(), "FAILED");
                boolean load = f.phase().equals("load");
                results.put(f.fragment(), new FragmentResult(f.fragment(), w.id, StopReason.ERROR, null, 0, null,
                        f.error()));
                fail(load ? 2 : 1, "fragment '" + f.fragment() + "' failed" + (load ? " to load" : "") + " (worker "
                        + id + "): " + f.error());
            }
            case Control.Done d -> {
                runsIt(w, id, d.fragment(), "DONE");
                if (!results.containsKey(d.fragment())) {
                    results.put(d.fragment(), new FragmentResult(d.fragment(), id, d.reason(), d.detail(),
                            d.durationNs(), parseStats(d.stats()), null));
                    List<NetStatistics.Link> l = parseLinks(d.fragment(), d.stats());
                    synchronized (this) {
                        links.addAll(l);
                    }
                }
            }
            case Control.Bye b -> {
                if (w != null) {
                    w.bye = true;
                }
            }
            case Control.Heartbeat h -> { }
            default -> throw new IllegalArgumentException("a worker sent " + c.getClass().getSimpleName()
                    + ", which only the driver sends");
        }
    }

    private static void runsIt(Worker w, String id, String fragment, String what) {
        if (w == null || !w.fragments.contains(fragment)) {
            throw new IllegalArgumentException(what + " for fragment '" + fragment + "' from worker " + id
                    + ", which does not run it");
        }
    }

    private void register(ControlChannel ch, Control.Register m, Worker known) {
        if (known != null) {
            if (!known.fragments.isEmpty() && phase != Phase.REGISTERING) {
                // it did not get ASSIGN yet (sent before its publication connected): the outbox still has it, or resend
                if (known.outbox.isEmpty()) {
                    known.outbox.add(assignment(known));
                }
            }
            return;
        }
        String id = m.id();
        String control = m.control();
        Worker w = new Worker(id, control, m.address(), m.ports());
        w.lastHeard = System.nanoTime();
        ch.open(control);
        String refuse = null;
        List<String> requested = new ArrayList<>(m.fragments());
        if (!plan.digest().equals(m.digest())) {
            refuse = "its app file differs from the driver's " + plan.label() + " (run the same file everywhere)";
        } else if (phase != Phase.REGISTERING) {
            refuse = "the app is already " + phase.name().toLowerCase(Locale.ROOT);
        } else if (requested.isEmpty()) {
            for (String f : plan.fragmentNames()) {
                if (!assigned.containsKey(f) && !o.localFragments().contains(f)) {
                    requested.add(f);
                    break;
                }
            }
            if (requested.isEmpty()) {
                refuse = "every fragment has a worker already";
            }
        } else {
            for (String f : requested) {
                if (!plan.fragmentNames().contains(f)) {
                    refuse = "no fragment '" + f + "' (fragments: " + plan.fragmentNames() + ")";
                } else if (assigned.containsKey(f)) {
                    refuse = "fragment '" + f + "' runs on worker " + assigned.get(f).id + " already";
                }
            }
        }
        if (refuse != null) {
            o.err().println("driver: refused worker " + id + ": " + refuse);
            Control reject = new Control.Reject(refuse);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (!ch.send(control, id, reject) && System.nanoTime() < deadline) {
                FragmentWorker.sleep();
            }
            ch.closePeer(control);
            return;
        }
        workers.put(id, w);
        for (String f : requested) {
            assigned.put(f, w);
            w.fragments.add(f);
        }
        o.err().println("driver: worker " + id + " runs fragment(s) " + w.fragments);
    }

    /** Every worker has its fragments: give each remote receiver a port of its worker's, then send ASSIGN. */
    private void assign() {
        Map<String, Set<Integer>> usedPerAddress = new LinkedHashMap<>();
        Map<String, Integer> next = new LinkedHashMap<>();
        endpoints.clear();
        for (FragmentPlan.RemoteReceiver rr : plan.remoteReceivers()) {
            Worker w = assigned.get(rr.fragment());
            Set<Integer> used = usedPerAddress.computeIfAbsent(w.address, a -> new LinkedHashSet<>());
            int i = next.getOrDefault(w.id, 0);
            while (i < w.ports.size() && used.contains(w.ports.get(i))) {
                i++;
            }
            if (i >= w.ports.size()) {
                fail(3, "worker " + w.id + " offered too few free ports for fragment '" + rr.fragment() + "'");
                return;
            }
            int port = w.ports.get(i);
            used.add(port);
            next.put(w.id, i + 1);
            endpoints.put(rr.receiver(), w.address + ":" + port);
        }
        phase = Phase.LOADING;
        for (Worker w : workers.values()) {
            w.outbox.add(assignment(w));
        }
    }

    private final Map<String, String> endpoints = new LinkedHashMap<>();

    private Control assignment(Worker w) {
        return new Control.Assign(w.fragments, endpoints, w.address, o.gpuFallback());
    }

    private void checkLiveness(long now) {
        for (Worker w : workers.values()) {
            if (w.gone || w.bye) {
                continue;
            }
            long silent = now - w.lastHeard;
            if (silent > TimeUnit.MILLISECONDS.toNanos(FragmentWorker.LOST_MS)) {
                w.gone = true;
                lostDetectedAfterMs = TimeUnit.NANOSECONDS.toMillis(silent);
                if (phase == Phase.STOPPING) {
                    continue;
                }
                fail(1, "worker " + w.id + " running fragment(s) " + w.fragments + " was lost: nothing heard for "
                        + TimeUnit.NANOSECONDS.toMillis(silent) + " ms (heartbeats every " + FragmentWorker.HEARTBEAT_MS
                        + " ms, lost after " + FragmentWorker.LOST_MS + " ms)");
            }
        }
        for (LocalWorkers.Child s : local.children()) {
            if (!s.process().isAlive()) {
                Worker w = assigned.get(s.fragment());
                boolean expected = w != null && (w.bye || w.gone) || phase == Phase.STOPPING;
                if (!expected && phase != Phase.DONE) {
                    if (w != null) {
                        w.gone = true;
                    }
                    String tail = s.lastLines();
                    fail(w == null ? 3 : 1, "the worker for fragment '" + s.fragment() + "' (pid " + s.process().pid()
                            + ") exited with code " + s.process().exitValue() + (tail.isEmpty() ? "" : "; its last "
                            + "output:\n" + tail));
                }
            }
        }
    }

    private List<Worker> liveWorkers() {
        return workers.values().stream().filter(w -> !w.gone).toList();
    }

    private void fail(int code, String message) {
        if (error != null) {
            return;
        }
        error = message;
        exitCode = code;
        o.err().println("driver: " + message);
        stopAll(true, message);
    }

    private void stopAll(boolean abort, String reason) {
        phase = Phase.STOPPING;
        stopDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        for (Worker w : liveWorkers()) {
            w.outbox.clear();
            w.outbox.add(new Control.Stop(abort, reason));
        }
    }

    private List<String> unassigned() {
        return plan.fragmentNames().stream().filter(f -> !assigned.containsKey(f)).toList();
    }

    /**
     * The command that starts a worker JVM for {@code fragment}: this JVM's java, options and class path (or
     * module path). The network secret is not on it: a worker gets it through its environment.
     */
    public static List<String> workerCommand(Path app, String fragment, String driverEndpoint, String workerAddress,
                                             List<Path> manifests, List<String> params) {
        List<String> cmd = ChildJvm.javaAndOptions();
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath != null && !modulePath.isEmpty()) {
            cmd.addAll(List.of("-p", modulePath, "-m", "io.jkompute.net/" + WORKER_MAIN));
        } else {
            cmd.addAll(List.of("-cp", ChildJvm.classPath(), WORKER_MAIN));
        }
        cmd.addAll(List.of("--app", app.toString(), "--fragments", fragment, "--driver", driverEndpoint,
                "--worker-address", workerAddress));
        for (Path m : manifests) {
            cmd.addAll(List.of("--manifest", m.toString()));
        }
        for (String p : params) {
            cmd.addAll(List.of("--param", p));
        }
        return cmd;
    }

    // ---- statistics --------------------------------------------------------------------------------------

    /**
     * Every fragment's network links as its worker reported them at its end (exact: taken after closing), in the
     * app's fragment order (not the order the reports arrived in).
     */
    public synchronized List<NetStatistics.Link> links() {
        List<String> order = plan == null ? List.of() : plan.fragmentNames();
        List<NetStatistics.Link> out = new ArrayList<>(links);
        out.sort(java.util.Comparator.comparingInt(l -> order.indexOf(l.fragment())));
        return List.copyOf(out);
    }

    @SuppressWarnings("unchecked")
    private static List<NetStatistics.Link> parseLinks(String fragment, String json) {
        if (json == null || json.isBlank()) {
            return List.of();
        }
        return NetStatistics.parseLinks(fragment,
                (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(json));
    }

    @SuppressWarnings("unchecked")
    static JobStatistics parseStats(String json) {
        if (json == null || json.isBlank()) {
            return null;
        }
        Map<String, Object> m = (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(json);
        List<EntityStatistics> list = new ArrayList<>();
        for (Object eo : (List<Object>) m.get("entities")) {
            Map<String, Object> e = (Map<String, Object>) eo;
            String name = (String) e.get("name");
            List<CodeletStatistics> codelets = new ArrayList<>();
            for (Object co : (List<Object>) e.get("codelets")) {
                Map<String, Object> c = (Map<String, Object>) co;
                codelets.add(new CodeletStatistics(name, (String) c.get("name"), (String) c.get("type"),
                        num(c, "ticks"), num(c, "total_tick_ns"), num(c, "max_tick_ns"), null));
            }
            list.add(new EntityStatistics(name, num(e, "ticks"), num(e, "total_tick_ns"), num(e, "max_tick_ns"),
                    num(e, "messages_in"), num(e, "messages_out"), List.copyOf(codelets), null));
        }
        return new JobStatistics(num(m, "duration_ns"), List.copyOf(list));
    }

    private static long num(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Number n ? n.longValue() : 0;
    }

    private static EntityStatistics rename(EntityStatistics e, String name) {
        return new EntityStatistics(name, e.ticks(), e.totalTickNs(), e.maxTickNs(), e.messagesIn(), e.messagesOut(),
                e.codelets(), e.recentTicks());
    }
}
