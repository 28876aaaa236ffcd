package io.jkompute.net.fragment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * Where the fragments of one app run: which worker runs each fragment, on which address and port each remote
 * receiver listens, and, on the worker's host, which GPU a fragment gets. It decides; the driver and the worker
 * carry the decisions out.
 */
final class Placement {
    /** A registered worker as placement sees it: its id, the address others reach it at, the ports it offered. */
    record Offer(String worker, String address, List<Integer> ports) {
        Offer {
            ports = List.copyOf(ports);
        }
    }

    /** The fragments a worker is given, or why it is refused (then {@code fragments} is empty). */
    record Admission(List<String> fragments, String refusal) {
        Admission {
            fragments = List.copyOf(fragments);
        }

        boolean refused() {
            return refusal != null;
        }
    }

    private final FragmentPlan plan;
    private final List<String> reserved;
    private final Map<String, Offer> byFragment = new LinkedHashMap<>();

    /**
     * @param reserved fragments the driver starts workers for itself: a worker that asks for any fragment is not
     *                 given one of these
     */
    Placement(FragmentPlan plan, List<String> reserved) {
        this.plan = plan;
        this.reserved = List.copyOf(reserved);
    }

    /**
     * Gives {@code w} the fragments it asks for ({@code requested}; empty: the first fragment that has no worker and
     * is not reserved), or refuses it: an unknown fragment, one another worker runs, nothing left.
     */
    Admission admit(Offer w, List<String> requested) {
        List<String> give = new ArrayList<>(requested);
        if (give.isEmpty()) {
            plan.fragmentNames().stream().filter(f -> !byFragment.containsKey(f) && !reserved.contains(f)).findFirst()
                    .ifPresent(give::add);
            if (give.isEmpty()) {
                return new Admission(List.of(), "every fragment has a worker already");
            }
        }
        for (String f : give) {
            if (!plan.fragmentNames().contains(f)) {
                return new Admission(List.of(), "no fragment '" + f + "' (fragments: " + plan.fragmentNames() + ")");
            }
            Offer other = byFragment.get(f);
            if (other != null) {
                return new Admission(List.of(), "fragment '" + f + "' runs on worker " + other.worker() + " already");
            }
        }
        for (String f : give) {
            byFragment.put(f, w);
        }
        return new Admission(give, null);
    }

    /** The worker that runs {@code fragment}, or null. */
    String workerOf(String fragment) {
        Offer w = byFragment.get(fragment);
        return w == null ? null : w.worker();
    }

    /** Whether every fragment has a worker. */
    boolean complete() {
        return byFragment.size() == plan.fragmentNames().size();
    }

    /** The fragments without a worker, in the app's order. */
    List<String> unplaced() {
        return plan.fragmentNames().stream().filter(f -> !byFragment.containsKey(f)).toList();
    }

    /**
     * Each remote receiver's {@code address:port} (by the receiver's path), from the ports its fragment's worker
     * offered, in the plan's order; two workers on one address never get the same port.
     *
     * @throws IllegalStateException a worker offered fewer free ports than its fragments' receivers need
     */
    Map<String, String> endpoints() {
        Map<String, Set<Integer>> usedPerAddress = new LinkedHashMap<>();
        Map<String, Integer> next = new LinkedHashMap<>();
        Map<String, String> endpoints = new LinkedHashMap<>();
        for (FragmentPlan.RemoteReceiver rr : plan.remoteReceivers()) {
            Offer w = byFragment.get(rr.fragment());
            Set<Integer> used = usedPerAddress.computeIfAbsent(w.address(), a -> new LinkedHashSet<>());
            int i = next.getOrDefault(w.worker(), 0);
            while (i < w.ports().size() && used.contains(w.ports().get(i))) {
                i++;
            }
            if (i >= w.ports().size()) {
                throw new IllegalStateException("worker " + w.worker() + " offered too few free ports for fragment '"
                        + rr.fragment() + "'");
            }
            int port = w.ports().get(i);
            used.add(port);
            next.put(w.worker(), i + 1);
            endpoints.put(rr.receiver(), w.address() + ":" + port);
        }
        return endpoints;
    }

    /**
     * On a worker's host: the parameters that put {@code fragment} on a GPU this host has. None when the fragment
     * names no GPU or its GPU is here; with {@code fallback}, every Vulkan device of the fragment moves to device 0
     * (with a warning) when its GPU is missing.
     *
     * @param deviceCount this host's Vulkan devices (asked only when the fragment names a GPU)
     * @throws IllegalArgumentException the GPU is missing and there is no fallback (or no device at all)
     */
    static List<String> gpuParameters(FragmentPlan plan, String fragment, boolean fallback, IntSupplier deviceCount,
                                      Consumer<String> warn) {
        Integer gpu = plan.fragment(fragment).gpu();
        if (gpu == null) {
            return List.of();
        }
        int count = deviceCount.getAsInt();
        if (gpu < count) {
            return List.of();
        }
        String msg = "fragment '" + fragment + "' is placed on Vulkan device " + gpu + " but this host has " + count
                + " Vulkan device" + (count == 1 ? "" : "s");
        if (!fallback || count == 0) {
            throw new IllegalArgumentException(msg + (count == 0 ? "" : "; run the driver with --gpu-fallback to "
                    + "use device 0 instead"));
        }
        warn.accept(msg + "; using device 0 (--gpu-fallback)");
        List<String> out = new ArrayList<>();
        for (String device : plan.vulkanDevices(fragment)) {
            out.add(device + "/device_index=0");
        }
        return out;
    }
}
