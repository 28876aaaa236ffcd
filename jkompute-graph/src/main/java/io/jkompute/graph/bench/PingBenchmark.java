package io.jkompute.graph.bench;

import io.jkompute.graph.Codelet;
import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.Graph;
import io.jkompute.graph.Message;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.Transmitter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Ping tx → rx for each scheduler: messages per second and per-hop latency (publish → receive, on the realtime
 * clock). Two shapes: lock-step (capacity 1, back-pressure: one message in flight) and buffered (capacity 64).
 * Each case is warmed up on its own graph first; a graph runs once.
 *
 * <pre>./jkompute build && java -cp ".jkompute/lib/*" io.jkompute.graph.bench.PingBenchmark [messages]</pre>
 */
public final class PingBenchmark {
    private PingBenchmark() {
    }

    /** Sends an empty message per tick. */
    static final class Tx extends Codelet {
        Transmitter out;

        @Override
        protected void tick() {
            out.publish(Message.create());
        }
    }

    /** Receives one message per tick and records how long it travelled. */
    static final class Rx extends Codelet {
        Receiver in;
        long[] latencies;
        int n;

        @Override
        protected void tick() {
            Message m = in.receive();
            long now = graph().clock().timestamp();
            latencies[n++] = now - m.timestamp().pubtime();
        }
    }

    record Result(String scheduler, int capacity, long messages, double seconds, long[] latencies) {
        double perSecond() {
            return messages / seconds;
        }

        long percentile(double p) {
            return latencies[(int) Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
        }

        double mean() {
            return Arrays.stream(latencies).average().orElse(0);
        }
    }

    /** Builds tx → rx with the Java API and runs it. */
    static Result run(String scheduler, int workers, int capacity, int messages) {
        try (Graph g = Graph.create()) {
            Entity sched = g.addEntity("sched");
            Component clock = sched.add("RealtimeClock", "clock");
            Component s = sched.add(scheduler, "scheduler");
            g.setParameter(s, "clock", clock);
            if (!scheduler.equals("GreedyScheduler")) {
                g.setParameter(s, "worker_thread_number", (long) workers);
            }
            if (scheduler.equals("MultiThreadScheduler")) {
                g.setParameter(s, "check_recession_period_ms", 0.1);
            }

            Entity tx = g.addEntity("tx");
            Transmitter out = (Transmitter) tx.add("DoubleBufferTransmitter", "out");
            g.setParameter(out, "capacity", (long) capacity);
            g.setParameter(tx.add("DownstreamReceptiveSchedulingTerm", "room"), "transmitter", out);
            g.setParameter(tx.add("CountSchedulingTerm", "count"), "count", (long) messages);
            Tx txc = tx.add(new Tx(), "ping");
            txc.out = out;

            Entity rx = g.addEntity("rx");
            Receiver in = (Receiver) rx.add("DoubleBufferReceiver", "in");
            g.setParameter(in, "capacity", (long) capacity);
            g.setParameter(rx.add("MessageAvailableSchedulingTerm", "avail"), "receiver", in);
            g.setParameter(rx.add("CountSchedulingTerm", "count"), "count", (long) messages);
            Rx rxc = rx.add(new Rx(), "pong");
            rxc.in = in;
            rxc.latencies = new long[messages];

            Component link = g.addEntity("links").add("Connection", "tx_to_rx");
            g.setParameter(link, "source", out);
            g.setParameter(link, "target", in);

            RunResult r = g.run();
            if (rxc.n != messages) {
                throw new IllegalStateException(scheduler + ": received " + rxc.n + " of " + messages + " (" + r + ")");
            }
            long[] lat = rxc.latencies.clone();
            Arrays.sort(lat);
            String name = scheduler.replace("Scheduler", "") + (scheduler.equals("GreedyScheduler") ? "" : "(" + workers + ")");
            return new Result(name, capacity, messages, r.durationNs() / 1e9, lat);
        }
    }

    public static void main(String[] args) {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        System.out.printf(Locale.ROOT, "ping tx -> rx, %d messages per run, %d CPUs, %s%n", messages,
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version"));
        System.out.printf(Locale.ROOT, "%-20s %8s %14s %12s %12s %12s%n", "scheduler", "capacity", "messages/s",
                "mean hop us", "p50 hop us", "p99 hop us");
        List<Object[]> cases = List.of(
                new Object[] {"GreedyScheduler", 1}, new Object[] {"MultiThreadScheduler", 1},
                new Object[] {"MultiThreadScheduler", 2}, new Object[] {"EventBasedScheduler", 1},
                new Object[] {"EventBasedScheduler", 2});
        for (int capacity : new int[] {1, 64}) {
            for (Object[] c : cases) {
                String sched = (String) c[0];
                int workers = (Integer) c[1];
                run(sched, workers, capacity, Math.max(1000, messages / 10)); // warm-up
                Result r = run(sched, workers, capacity, messages);
                System.out.printf(Locale.ROOT, "%-20s %8d %14.0f %12.2f %12.2f %12.2f%n", r.scheduler(), capacity,
                        r.perSecond(), r.mean() / 1e3, r.percentile(0.5) / 1e3, r.percentile(0.99) / 1e3);
            }
        }
    }
}
