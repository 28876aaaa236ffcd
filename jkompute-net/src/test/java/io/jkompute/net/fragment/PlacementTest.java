package io.jkompute.net.fragment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Which worker runs which fragment, where each remote receiver listens, and which GPU a fragment gets. */
class PlacementTest {
    private static FragmentPlan relay() {
        return FragmentPlan.read(FragmentPlanTest.APPS.resolve("fragments-relay.yaml"));
    }

    private static Placement.Offer offer(String id, String address, Integer... ports) {
        return new Placement.Offer(id, address, List.of(ports));
    }

    @Test
    void aWorkerThatAsksForNothingGetsTheFirstFragmentWithoutAWorkerThatTheDriverDoesNotStartItself() {
        Placement p = new Placement(relay(), List.of("tx"));
        assertEquals(List.of("relay"), p.admit(offer("w1", "127.0.0.1", 5000), List.of()).fragments());
        assertEquals(List.of("rx"), p.admit(offer("w2", "127.0.0.1", 5001), List.of()).fragments());
        Placement.Admission none = p.admit(offer("w3", "127.0.0.1", 5002), List.of());
        assertEquals("every fragment has a worker already", none.refusal());
        assertEquals(List.of(), none.fragments());
        assertFalse(p.complete());
        assertEquals(List.of("tx"), p.unplaced());
        assertEquals(List.of("tx"), p.admit(offer("local", "127.0.0.1", 5003), List.of("tx")).fragments());
        assertTrue(p.complete());
        assertEquals(List.of(), p.unplaced());
        assertEquals("w1", p.workerOf("relay"));
        assertEquals("w2", p.workerOf("rx"));
        assertEquals("local", p.workerOf("tx"));
    }

    @Test
    void aRefusedWorkerGetsNoneOfItsFragments() {
        Placement p = new Placement(relay(), List.of());
        assertFalse(p.admit(offer("w1", "127.0.0.1", 5000), List.of("relay")).refused());
        Placement.Admission taken = p.admit(offer("w2", "127.0.0.1", 5001), List.of("rx", "relay"));
        assertEquals("fragment 'relay' runs on worker w1 already", taken.refusal());
        assertNull(p.workerOf("rx"), "rx was asked for together with a taken fragment: not placed");
        assertEquals("no fragment 'nope' (fragments: [tx, relay, rx])",
                p.admit(offer("w2", "127.0.0.1", 5001), List.of("rx", "nope")).refusal());
        assertNull(p.workerOf("rx"));
        assertEquals(List.of("tx", "rx"), p.unplaced());
    }

    @Test
    void receiversGetTheirWorkersPortsInOrderAndTwoWorkersOnOneAddressNeverShareOne() {
        Placement p = new Placement(relay(), List.of());
        p.admit(offer("w0", "10.0.0.1", 7000), List.of("tx"));
        p.admit(offer("w1", "127.0.0.1", 5000, 5001), List.of("relay"));
        p.admit(offer("w2", "127.0.0.1", 5000, 5002), List.of("rx"));
        assertEquals(Map.of("relay/in", "127.0.0.1:5000", "rx/in", "127.0.0.1:5002"), p.endpoints());
        assertEquals(List.of("relay/in", "rx/in"), List.copyOf(p.endpoints().keySet()), "in the plan's order");

        Placement q = new Placement(relay(), List.of());
        q.admit(offer("w1", "127.0.0.1", 5000), List.of("tx", "relay"));
        q.admit(offer("w2", "127.0.0.1", 5000), List.of("rx"));
        IllegalStateException e = assertThrows(IllegalStateException.class, q::endpoints);
        assertEquals("worker w2 offered too few free ports for fragment 'rx'", e.getMessage());
    }

    @Test
    void aFragmentOnAMissingGpuFailsOrMovesToDeviceZeroWithAWarning() {
        FragmentPlan plan = FragmentPlan.read(FragmentPlanTest.APPS.resolve("fragments-gpu-pipeline.yaml"));
        List<String> warnings = new ArrayList<>();
        AtomicInteger asked = new AtomicInteger();
        assertEquals(List.of(), Placement.gpuParameters(plan, "gpu", false, () -> {
            asked.incrementAndGet();
            return 2;
        }, warnings::add));
        assertEquals(1, asked.get());

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Placement.gpuParameters(plan, "gpu", false, () -> 1, warnings::add));
        assertEquals("fragment 'gpu' is placed on Vulkan device 1 but this host has 1 Vulkan device; run the driver "
                + "with --gpu-fallback to use device 0 instead", e.getMessage());
        assertEquals(List.of(), warnings);

        assertEquals(List.of("gpu/device/device_index=0"),
                Placement.gpuParameters(plan, "gpu", true, () -> 1, warnings::add));
        assertEquals(List.of("fragment 'gpu' is placed on Vulkan device 1 but this host has 1 Vulkan device; using "
                + "device 0 (--gpu-fallback)"), warnings);

        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> Placement.gpuParameters(plan, "gpu", true, () -> 0, warnings::add));
        assertEquals("fragment 'gpu' is placed on Vulkan device 1 but this host has 0 Vulkan devices",
                none.getMessage());
        assertEquals(List.of(), Placement.gpuParameters(plan, "source", false, () -> 1, warnings::add));
    }
}
