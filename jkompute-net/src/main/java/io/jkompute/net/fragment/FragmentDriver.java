package io.jkompute.net.fragment;


import io.jkompute.graph.GraphException;
import io.jkompute.graph.JobStatistics;
import io.jkompute.graph.StopReason;
import io.jkompute.net.NetSecret;
import io.jkompute.net.NetStatistics;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

/**
 * The driver of a fragmented app (Holoscan's App Driver): workers register (the driver starts one JVM per local
 * fragment itself, {@link LocalWorkers}, and waits for the others to join), the driver assigns fragments to workers
 * and the receivers' ports ({@link Placement}), all load, all start, and the app ends as one ({@link AppReport}): when every fragment has ended the driver stops the workers
 * and prints every fragment's result and the statistics of all of them; when a fragment fails (load error, codelet
 * exception) or a worker is lost (no message for {@value FragmentWorker#LOST_MS} ms; heartbeats every
 * {@value FragmentWorker#HEARTBEAT_MS} ms) it stops the others and fails with an error naming the fragment.
 */
public final class FragmentDriver {
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

    /** A registered worker: where its control messages go, what it runs, and whether it is still there. */
    private static final class Worker {
        final Placement.Offer offer;
        final String control;
        final List<String> fragments = new ArrayList<>();
        final Deque<Control> outbox = new ArrayDeque<>();
        long lastHeard;
        boolean bye;
        boolean gone;

        Worker(Placement.Offer offer, String control) {
            this.offer = offer;
            this.control = control;
        }

        String id() {
            return offer.worker();
        }
    }

    private final Options o;
    private final Map<String, Worker> workers = new LinkedHashMap<>();
    private final Set<String> loaded = new HashSet<>();
    private final ConcurrentLinkedQueue<ControlChannel.Received> inbox = new ConcurrentLinkedQueue<>();
    private final IdleStrategy idle = new SleepingMillisIdleStrategy(1);
    private final Control beat = new Control.Heartbeat("driver");
    private LocalWorkers local;
    private FragmentPlan plan;
    private Placement placement;
    private volatile AppReport report;
    private Map<String, String> endpoints = Map.of();
    private volatile Phase phase = Phase.STARTING;
    private long rejectedNoted;
    private long lastRejectNote;
    private String error;
    private int exitCode;
    private long registerStart;
    private long lastBeat;
    private long lastWaitNote;
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
        placement = new Placement(plan, o.localFragments());
        report = new AppReport(plan.fragmentNames());
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
            phase = Phase.REGISTERING;
            registerStart = System.nanoTime();
            lastWaitNote = registerStart;
            idle.reset();
            while (phase != Phase.DONE) {
                idle.idle(doWork(ch));
            }
        } finally {
            local.reap();
            try {
                Runtime.getRuntime().removeShutdownHook(killChildren);
            } catch (IllegalStateException exiting) {
                // the hook runs
            }
        }
        return report.result(placement::workerOf, error, exitCode, System.nanoTime() - t0);
    }

    /**
     * One turn of the driver's loop (an Agrona agent's duty cycle, idled by {@link #idle}): take in the workers'
     * messages, send heartbeats and what waits in the outboxes, give up silent workers, and move the run on a phase
     * when it can. Returns the messages taken in and sent.
     */
    private int doWork(ControlChannel ch) {
        int work = ch.poll(inbox::add);
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
                    ch.send(w.control, w.id(), beat);
                }
            }
        }
        for (Worker w : workers.values()) {
            while (!w.gone && !w.outbox.isEmpty() && ch.send(w.control, w.id(), w.outbox.peek())) {
                w.outbox.poll();
                work++;
            }
        }
        checkLiveness(now);
        switch (phase) {
            case REGISTERING -> {
                if (placement.complete()) {
                    assign();
                } else if (now - registerStart > o.registerTimeout().toNanos()) {
                    fail(3, "no worker registered for fragment(s) " + placement.unplaced() + " within "
                            + o.registerTimeout().toSeconds() + " s (start them with: jkompute run " + o.app()
                            + " --worker --fragments NAME --driver HOST:" + o.port() + ")");
                } else if (now - lastWaitNote > TimeUnit.SECONDS.toNanos(5)) {
                    lastWaitNote = now;
                    o.err().println("driver: waiting for workers for fragment(s) " + placement.unplaced()
                            + " on port " + o.port());
                }
            }
            case LOADING -> {
                if (loaded.size() == plan.fragmentNames().size()) {
                    phase = Phase.RUNNING;
                    for (Worker w : liveWorkers()) {
                        w.outbox.add(new Control.Start());
                    }
                }
            }
            case RUNNING -> {
                if (report.complete()) {
                    stopAll(false, "the app ended");
                }
            }
            case STOPPING -> {
                boolean allGone = liveWorkers().stream().allMatch(w -> w.bye);
                if (allGone || now > stopDeadline) {
                    phase = Phase.DONE;
                }
            }
            default -> phase = Phase.DONE;
        }
        return work;
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
                report.failed(w.id(), f.fragment(), f.error());
                fail(load ? 2 : 1, "fragment '" + f.fragment() + "' failed" + (load ? " to load" : "") + " (worker "
                        + id + "): " + f.error());
            }
            case Control.Done d -> {
                runsIt(w, id, d.fragment(), "DONE");
                report.done(id, d);
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
        Placement.Offer offer = new Placement.Offer(m.id(), m.address(), m.ports());
        String control = m.control();
        ch.open(control);
        String refuse;
        if (!plan.digest().equals(m.digest())) {
            refuse = "its app file differs from the driver's " + plan.label() + " (run the same file everywhere)";
        } else if (phase != Phase.REGISTERING) {
            refuse = "the app is already " + phase.name().toLowerCase(Locale.ROOT);
        } else {
            Placement.Admission a = placement.admit(offer, m.fragments());
            refuse = a.refusal();
            if (!a.refused()) {
                Worker w = new Worker(offer, control);
                w.lastHeard = System.nanoTime();
                w.fragments.addAll(a.fragments());
                workers.put(w.id(), w);
                o.err().println("driver: worker " + w.id() + " runs fragment(s) " + w.fragments);
                return;
            }
        }
        o.err().println("driver: refused worker " + m.id() + ": " + refuse);
        Control reject = new Control.Reject(refuse);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (!ch.send(control, m.id(), reject) && System.nanoTime() < deadline) {
            FragmentWorker.sleep();
        }
        ch.closePeer(control);
    }

    /** Every worker has its fragments: give each remote receiver a port of its worker's, then send ASSIGN. */
    private void assign() {
        try {
            endpoints = placement.endpoints();
        } catch (IllegalStateException e) {
            fail(3, e.getMessage());
            return;
        }
        phase = Phase.LOADING;
        for (Worker w : workers.values()) {
            w.outbox.add(assignment(w));
        }
    }

    private Control assignment(Worker w) {
        return new Control.Assign(w.fragments, endpoints, w.offer.address(), o.gpuFallback());
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
                fail(1, "worker " + w.id() + " running fragment(s) " + w.fragments + " was lost: nothing heard for "
                        + TimeUnit.NANOSECONDS.toMillis(silent) + " ms (heartbeats every " + FragmentWorker.HEARTBEAT_MS
                        + " ms, lost after " + FragmentWorker.LOST_MS + " ms)");
            }
        }
        for (LocalWorkers.Child s : local.children()) {
            if (!s.process().isAlive()) {
                String id = placement.workerOf(s.fragment());
                Worker w = id == null ? null : workers.get(id);
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

    /**
     * Every fragment's network links as its worker reported them at its end (exact: taken after closing), in the
     * app's fragment order (not the order the reports arrived in).
     */
    public List<NetStatistics.Link> links() {
        AppReport r = report;
        return r == null ? List.of() : r.links();
    }
}
