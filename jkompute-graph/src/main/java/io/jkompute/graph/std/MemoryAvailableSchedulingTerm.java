package io.jkompute.graph.std;

import io.jkompute.graph.Allocator;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;

/** READY iff the allocator could hand out {@code min_bytes} (or {@code min_blocks} × block size) now; else WAIT. */
public final class MemoryAvailableSchedulingTerm extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public MemoryAvailableSchedulingTerm() {
    }

    private Parameter<Allocator> allocator;
    private Parameter<Long> minBytes;
    private Parameter<Long> minBlocks;
    private long bytes;

    @Override
    protected void registerInterface(Registrar r) {
        allocator = r.handle("allocator", Allocator.class, "the allocator to watch");
        minBytes = r.optional("min_bytes", ParameterTypes.UINT64, "bytes that must be available");
        minBlocks = r.optional("min_blocks", ParameterTypes.UINT64, "blocks that must be available");
    }

    @Override
    protected void initialize() {
        if (minBytes.isSet() == minBlocks.isSet()) {
            throw new IllegalArgumentException("give exactly one of 'min_bytes' and 'min_blocks'");
        }
        bytes = minBytes.isSet() ? minBytes.get() : Math.multiplyExact(minBlocks.get(), allocator.get().blockSize());
        allocator.get().addFreeListener(entity());
    }

    @Override
    public SchedulingCondition check(long now) {
        return allocator.get().isAvailable(bytes) ? readySince(now) : notReady(SchedulingCondition.WAIT);
    }

    @Override
    public String describeState(long now) {
        return check(now) + ": " + bytes + " bytes wanted from '" + allocator.get().path() + "'";
    }
}
