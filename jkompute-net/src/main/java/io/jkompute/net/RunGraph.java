package io.jkompute.net;

import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.Graph;
import io.jkompute.graph.GraphException;
import io.jkompute.graph.RunResult;
import java.nio.file.Path;

/**
 * Runs one graph (YAML files plus {@code --param entity/component/key=value} overrides) and prints one
 * {@code LINK …} line per network component, then {@code RESULT <stop reason>} or {@code FAILED <message>} (exit
 * status 1). The multi-process tests and the GPU-host script start processes with it; {@code ./jkompute run}
 * does the same for people.
 */
public final class RunGraph {
    private RunGraph() {
    }

    /** Loads the app files in {@code args} and runs the graph to its end; exits 1 when it failed. */
    public static void main(String[] args) {
        Graph.Loader loader = Graph.loader();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--param")) {
                loader.param(args[++i]);
            } else {
                loader.file(Path.of(args[i]));
            }
        }
        int status = 0;
        Graph g = null;
        try {
            g = loader.load();
            System.out.println("READY");
            System.out.flush();
            long t0 = System.nanoTime();
            RunResult r = g.run();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("RESULT " + r.reason());
            System.out.println("TIME " + ms + " ms");
            for (Entity e : g.entities()) {
                for (Component c : e.components()) {
                    if (c instanceof io.jkompute.graph.std.VulkanDevice v) {
                        // which GPU this process used: the split-pipeline script prints it per side
                        io.jkompute.DeviceProperties p = v.manager().deviceProperties();
                        System.out.println("DEVICE " + e.name() + "/" + c.name() + " " + p.index() + " " + p.name());
                    }
                }
            }
        } catch (GraphException e) {
            System.out.println("FAILED " + e.getMessage().replace('\n', ' '));
            status = 1;
        } finally {
            if (g != null) {
                java.util.List<Component> links = new java.util.ArrayList<>();
                for (Entity e : g.entities()) {
                    for (Component c : e.components()) {
                        if (c instanceof UcxTransmitter || c instanceof UcxReceiver) {
                            links.add(c);
                        }
                    }
                }
                try {
                    g.close();
                } catch (RuntimeException e) {
                    System.out.println("FAILED closing: " + e.getMessage());
                    status = 1;
                }
                for (Component c : links) {
                    System.out.println("LINK " + (c instanceof UcxTransmitter t ? t.linkStatistics()
                            : ((UcxReceiver) c).linkStatistics()));
                }
            }
        }
        System.out.flush();
        System.exit(status);
    }
}
