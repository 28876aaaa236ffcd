package io.jkompute.internal;

import io.jkompute.Manager;
import io.jkompute.OpSyncDevice;
import io.jkompute.OpSyncLocal;
import io.jkompute.Sequence;
import io.jkompute.Tensor;

/**
 * The copies between a tensor's host view and the GPU that {@link Tensor#syncDevice()} and its asynchronous forms
 * start. A tensor is a data object and submits nothing itself (Kompute's rule): its Manager records each direction
 * once into a sequence of its own, on first use, and evaluates that sequence per call, so a sync per frame costs one
 * submit and allocates nothing.
 *
 * <p>The two sequences of one tensor live in a {@link Slot} the tensor holds. Not in a map of the Manager's: the
 * sequences' operations refer to the tensor, so such a map would keep every synced tensor reachable for as long as
 * its Manager lives, and a tensor dropped without {@code close()} would never be reported as a leak.
 */
public final class TensorTransfers {
    private final Manager manager;

    public TensorTransfers(Manager manager) {
        this.manager = manager;
    }

    /** One tensor's recorded-once copies; its monitor orders the syncs of that tensor. */
    public static final class Slot {
        private Sequence toDevice;
        private Sequence toHost;
    }

    /** Starts the host-to-GPU copy of {@code tensor} (DEVICE memory) and returns the point at which it is done. */
    public Sequence.Point toDeviceAsync(Tensor tensor, Slot slot) {
        synchronized (slot) {
            return startToDevice(tensor, slot);
        }
    }

    /** Copies the host view of {@code tensor} to the GPU and waits. */
    public void toDevice(Tensor tensor, Slot slot) {
        synchronized (slot) {
            startToDevice(tensor, slot);
            slot.toDevice.evalAwait();
        }
    }

    private Sequence.Point startToDevice(Tensor tensor, Slot slot) {
        if (slot.toDevice == null) {
            slot.toDevice = manager.sequence().record(new OpSyncDevice(tensor));
        } else if (slot.toDevice.isRunning()) {
            slot.toDevice.evalAwait();
        }
        slot.toDevice.evalAsync();
        return slot.toDevice.point();
    }

    /**
     * Starts the GPU-to-host copy of {@code tensor} (DEVICE memory), waiting on the GPU for {@code after}, and returns
     * the point at which the host view holds the data.
     */
    public Sequence.Point toHostAsync(Tensor tensor, Slot slot, Sequence.Point after) {
        synchronized (slot) {
            return startToHost(tensor, slot, after);
        }
    }

    /** Copies the GPU data of {@code tensor} to its host view and waits. */
    public void toHost(Tensor tensor, Slot slot) {
        synchronized (slot) {
            startToHost(tensor, slot, Sequence.Point.REACHED);
            slot.toHost.evalAwait();
        }
    }

    private Sequence.Point startToHost(Tensor tensor, Slot slot, Sequence.Point after) {
        if (slot.toHost == null) {
            slot.toHost = manager.sequence().record(new OpSyncLocal(tensor));
        } else if (slot.toHost.isRunning()) {
            slot.toHost.evalAwait();
        }
        slot.toHost.nextWaitsFor(after).evalAsync();
        return slot.toHost.point();
    }

    /** Waits for every copy started through {@code slot}. */
    public void await(Slot slot) {
        synchronized (slot) {
            if (slot.toDevice != null && slot.toDevice.isRunning()) {
                slot.toDevice.evalAwait();
            }
            if (slot.toHost != null && slot.toHost.isRunning()) {
                slot.toHost.evalAwait();
            }
        }
    }

    /** Closes the slot's sequences (each waits for its copy first); the tensor is freed after this. */
    public void release(Slot slot) {
        synchronized (slot) {
            if (slot.toDevice != null) slot.toDevice.close();
            if (slot.toHost != null) slot.toHost.close();
            slot.toDevice = slot.toHost = null;
        }
    }
}
