package io.jkompute.net.fragment;

import io.jkompute.Manager;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphException;
import io.jkompute.graph.RunResult;
import io.jkompute.net.NetStatistics;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

/**
 * A worker: runs one or more fragments of an app for a {@link FragmentDriver}. It registers with the driver
 * (offering free UDP ports for its fragments' receivers), loads the fragments the driver assigns, runs them on
 * START, reports each one's end (statistics included) and exits on STOP. It sends a heartbeat every
 * {@value #HEARTBEAT_MS} ms and stops its fragments when it has heard nothing from the driver for
 * {@value #LOST_MS} ms.
 *
 * <p>Exit codes: 0 its fragments ran to the end; 1 a fragment failed or the app was aborted; 2 a load or usage
 * error, or the driver refused it; 3 the driver could not be reached or was lost.
 */
public final class FragmentWorker {
    /** How often a worker tells the driver it is alive (ms). */
    public static final int HEARTBEAT_MS = 100;
    /** How long without a heartbeat before a worker or the driver counts as lost (ms). */
    public static final int LOST_MS = 1000;
    /** The driver's UDP port when none is given. */
    public static final int DEFAULT_DRIVER_PORT = 57777;
    static final int PORT_MIN = 10000;
    static final int PORT_MAX = 32767;

    /**
     * What a worker runs: the app, the fragments it asks for, the driver it registers with, and where it reports.
     *
     * @param fragments fragments this worker asks for; empty: whatever the driver gives it
     * @param driver the driver's {@code host[:port]}
     * @param workerAddress the address the driver and other workers reach this one at; null: the local address
     *                      that routes to the driver
     */
    public record Options(Path app, List<String> fragments, String driver, String workerAddress, List<Path> manifests,
                          List<String> params, Duration connectTimeout, PrintStream out, PrintStream err) {
        /** Options with immutable copies of the lists. */
        public Options {
            fragments = List.copyOf(fragments);
            manifests = List.copyOf(manifests);
            params = List.copyOf(params);
        }
    }

    private record Outcome(String fragment, RunResult result, String stats, GraphException error) {
    }

    private final Options o;
    private final Map<String, Graph> graphs = new LinkedHashMap<>();
    private final Map<String, Thread> runners = new LinkedHashMap<>();
    private final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<ControlChannel.Received> inbox = new ConcurrentLinkedQueue<>();
    private final List<String> reported = new ArrayList<>();
    private boolean failed;

    /** A worker for one run of the app in {@code options}. */
    public FragmentWorker(Options options) {
        this.o = options;
    }

    /** Runs until the driver says stop (or is lost); returns the exit code. */
    public int run() {
        FragmentPlan plan;
        try {
            plan = FragmentPlan.read(o.app());
            for (String f : o.fragments()) {
                plan.fragment(f);
            }
        } catch (GraphException | IllegalArgumentException e) {
            o.err().println("error: " + e.getMessage());
            return 2;
        }
        String driverEndpoint = endpoint(o.driver(), DEFAULT_DRIVER_PORT);
        String address;
        int ctlPort;
        List<Integer> ports;
        try {
            address = o.workerAddress() != null ? o.workerAddress() : addressToward(driverEndpoint);
            ctlPort = freePorts(address, 1).get(0);
            ports = freePorts(address, plan.remoteReceivers().size() + 2);
        } catch (IOException e) {
            o.err().println("error: " + e.getMessage());
            return 3;
        }
        String self = address + ":" + ctlPort;
        String id = self + "/pid " + ProcessHandle.current().pid();
        try (ControlChannel ch = new ControlChannel(self, id)) {
            return loop(ch, plan, driverEndpoint, id, address, ports);
        } catch (RuntimeException e) {
            o.err().println("error: " + e.getMessage());
            return 3;
        } finally {
            for (Graph g : graphs.values()) {
                g.close();
            }
        }
    }

    private int loop(ControlChannel ch, FragmentPlan plan, String driverEndpoint, String id, String address,
                     List<Integer> ports) {
        Control register = new Control.Register(id, id.substring(0, id.indexOf('/')), address, o.fragments(), ports,
                plan.digest(), ProcessHandle.current().pid());
        long start = System.nanoTime();
        long lastSent = 0;
        long lastHeard = 0;
        boolean registered = false;
        boolean started = false;
        Thread heartbeat = null;
        IdleStrategy idle = new SleepingMillisIdleStrategy(1);
        try {
            while (true) {
                long now = System.nanoTime();
                int work = ch.poll(inbox::add);
                ControlChannel.Received received;
                while ((received = inbox.poll()) != null) {
                    if (received instanceof ControlChannel.Violation v) {
                        o.err().println("error: protocol violation by the driver: " + v.error() + "; stopping "
                                + graphs.keySet());
                        stopAll();
                        return 1;
                    }
                    Control m = ((ControlChannel.Taken) received).message();
                    lastHeard = System.nanoTime();
                    switch (m) {
                        case Control.Heartbeat h -> { }
                        case Control.Reject r -> {
                            o.err().println("error: the driver refused this worker: " + r.error());
                            return 2;
                        }
                        case Control.Assign a -> {
                            if (registered) {
                                continue; // sent again: it crossed a repeated REGISTER
                            }
                            registered = true;
                            if (heartbeat == null) {
                                heartbeat = heartbeats(ch, driverEndpoint, id);
                            }
                            load(ch, plan, driverEndpoint, id, a);
                            lastHeard = System.nanoTime(); // loading may take a while; the driver's heartbeats queue up
                        }
                        case Control.Start st -> {
                            if (!started) {
                                started = true;
                                startAll();
                            }
                        }
                        case Control.Stop stop -> {
                            boolean abort = stop.abort();
                            if (abort) {
                                o.err().println("stopping: " + stop.reason());
                            }
                            stopAll();
                            report(ch, driverEndpoint, id);
                            send(ch, driverEndpoint, new Control.Bye(id));
                            return failed || abort ? 1 : 0;
                        }
                        default -> o.err().println("warning: the driver sent " + m.getClass().getSimpleName()
                                + ", which only workers send");
                    }
                }
                report(ch, driverEndpoint, id);
                if (!registered && now - lastSent > TimeUnit.MILLISECONDS.toNanos(HEARTBEAT_MS)) {
                    lastSent = now;
                    ch.send(driverEndpoint, "driver", register); // repeated until ASSIGN: the driver takes it once
                    if (lastHeard == 0 && now - start > o.connectTimeout().toNanos()) {
                        o.err().println("error: no driver at " + driverEndpoint + " after "
                                + o.connectTimeout().toSeconds() + " s");
                        return 3;
                    }
                }
                if (lastHeard != 0 && now - lastHeard > TimeUnit.MILLISECONDS.toNanos(LOST_MS)) {
                    o.err().println("error: lost the driver at " + driverEndpoint + " (nothing heard for "
                            + TimeUnit.NANOSECONDS.toMillis(now - lastHeard) + " ms); stopping " + graphs.keySet());
                    stopAll();
                    return 3;
                }
                idle.idle(work);
            }
        } finally {
            if (heartbeat != null) {
                heartbeat.interrupt();
            }
        }
    }

    private Thread heartbeats(ControlChannel ch, String driverEndpoint, String id) {
        Control hb = new Control.Heartbeat(id);
        Thread t = Thread.ofPlatform().daemon().name("jkompute-worker-heartbeat").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                send(ch, driverEndpoint, hb);
                try {
                    Thread.sleep(HEARTBEAT_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        return t;
    }

    private void load(ControlChannel ch, FragmentPlan plan, String driverEndpoint, String id, Control.Assign m) {
        FragmentPlan.Wiring wiring = new FragmentPlan.Wiring(m.endpoints(), m.bind());
        boolean fallback = m.gpuFallback();
        for (String f : m.fragments()) {
            try {
                List<String> params = new ArrayList<>(o.params());
                params.addAll(Placement.gpuParameters(plan, f, fallback, () -> Manager.listDevices().size(),
                        warning -> o.err().println("warning: " + warning)));
                long t0 = System.nanoTime();
                Graph g = plan.load(f, wiring, o.manifests(), params);
                graphs.put(f, g);
                send(ch, driverEndpoint, new Control.Loaded(id, f, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)));
            } catch (RuntimeException | LinkageError e) {
                failed = true;
                reported.add(f);
                send(ch, driverEndpoint, new Control.Failed(id, f, "load",
                        e.getMessage() == null ? e.toString() : e.getMessage()));
            }
        }
    }

    private void startAll() {
        for (Map.Entry<String, Graph> e : graphs.entrySet()) {
            String f = e.getKey();
            Graph g = e.getValue();
            g.runAsync();
            runners.put(f, Thread.ofPlatform().daemon().name("jkompute-fragment-" + f).start(() -> {
                try {
                    RunResult r = g.await();
                    // closed here, before the report: a transmitter closes once its receiver confirmed every
                    // message, so the links' delivered counts in the report are exact
                    g.close();
                    outcomes.add(new Outcome(f, r, NetStatistics.json(r.statistics(), NetStatistics.links(g)), null));
                } catch (GraphException ex) {
                    outcomes.add(new Outcome(f, null, null, ex));
                }
            }));
        }
    }

    private void stopAll() {
        for (Graph g : graphs.values()) {
            g.interrupt();
        }
        for (Thread t : runners.values()) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void report(ControlChannel ch, String driverEndpoint, String id) {
        Outcome out;
        while ((out = outcomes.poll()) != null) {
            if (reported.contains(out.fragment())) {
                continue;
            }
            reported.add(out.fragment());
            if (out.error() != null) {
                failed = true;
                send(ch, driverEndpoint, new Control.Failed(id, out.fragment(), "run",
                        String.valueOf(out.error().getMessage())));
            } else {
                RunResult r = out.result();
                send(ch, driverEndpoint, new Control.Done(id, out.fragment(), r.reason(),
                        r.detail() == null ? "" : r.detail(), r.durationNs(), out.stats()));
            }
        }
    }

    /** Sends reliably enough for control: retries for up to a second while the publication is back pressured. */
    private static void send(ControlChannel ch, String endpoint, Control m) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (!ch.send(endpoint, "driver", m) && System.nanoTime() < deadline) {
            sleep();
        }
    }

    static void sleep() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code host[:port]} with the default port. */
    static String endpoint(String hostPort, int defaultPort) {
        if (hostPort == null || hostPort.isBlank()) {
            return "127.0.0.1:" + defaultPort;
        }
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0 || hostPort.endsWith("]")) {
            return hostPort + ":" + defaultPort;
        }
        Integer.parseInt(hostPort.substring(colon + 1));
        return hostPort;
    }

    /** The local address the OS would use to reach {@code endpoint} (no packet is sent). */
    static String addressToward(String endpoint) throws IOException {
        int colon = endpoint.lastIndexOf(':');
        InetAddress host;
        try {
            host = InetAddress.getByName(endpoint.substring(0, colon));
        } catch (UnknownHostException e) {
            throw new IOException("unknown driver host '" + endpoint.substring(0, colon) + "'", e);
        }
        if (host.isLoopbackAddress()) {
            return "127.0.0.1";
        }
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(new InetSocketAddress(host, Integer.parseInt(endpoint.substring(colon + 1))));
            return s.getLocalAddress().getHostAddress();
        }
    }

    /**
     * {@code n} UDP ports in 10000–32767 that are free on {@code bindHost} now (random, so two workers rarely pick the
     * same).
     */
    static List<Integer> freePorts(String bindHost, int n) throws IOException {
        List<Integer> out = new ArrayList<>();
        InetAddress host = InetAddress.getByName(bindHost);
        for (int tries = 0; out.size() < n; tries++) {
            if (tries > 1000) {
                throw new IOException("no free UDP ports in " + PORT_MIN + "–" + PORT_MAX + " on " + bindHost);
            }
            int p = ThreadLocalRandom.current().nextInt(PORT_MIN, PORT_MAX + 1);
            if (out.contains(p)) {
                continue;
            }
            try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(host, p))) {
                out.add(p);
            } catch (SocketException busy) {
                // taken, try another
            }
        }
        return out;
    }

    /**
     * {@code FragmentWorker --app APP.yaml --driver HOST[:PORT] [--fragments a,b] [--worker-address HOST]
     * [--manifest FILE]... [--param E/C/P=V]...}: what the driver starts for local fragments.
     */
    public static void main(String[] args) {
        Path app = null;
        String driver = null;
        String address = null;
        List<String> fragments = new ArrayList<>();
        List<Path> manifests = new ArrayList<>();
        List<String> params = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--app" -> app = Path.of(v);
                case "--driver" -> driver = v;
                case "--worker-address" -> address = v;
                case "--fragments" -> fragments.addAll(List.of(v.split(",")));
                case "--manifest" -> manifests.add(Path.of(v));
                case "--param" -> params.add(v);
                default -> {
                    System.err.println("error: unknown argument " + a);
                    System.exit(2);
                }
            }
            i++;
        }
        if (app == null || driver == null) {
            System.err.println("usage: FragmentWorker --app APP.yaml --driver HOST[:PORT] [--fragments a,b] "
                    + "[--worker-address HOST] [--manifest FILE]... [--param E/C/P=V]...");
            System.exit(2);
        }
        int code = new FragmentWorker(new Options(app, fragments, driver, address, manifests, params,
                Duration.ofSeconds(60), System.out, System.err)).run();
        System.exit(code);
    }
}
