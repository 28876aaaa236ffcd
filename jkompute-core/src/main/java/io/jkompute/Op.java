package io.jkompute;

import java.util.List;

/**
 * An operation recorded into a {@link Sequence}: it records its commands once, when added, and may do host work
 * before each submit ({@code preEval}) and after each completed evaluation ({@code postEval}).
 * Operations refer to tensors, images and algorithms but own none of them.
 */
public abstract sealed class Op permits OpSyncDevice, OpSyncLocal, OpCopy, OpAlgoDispatch, OpMemoryBarrier {
    Op() {}

    abstract void record(CommandRecorder rec);

    void preEval() {}

    void postEval() {}

    /** Every tensor and image this operation touches (checked to be open before each evaluation). */
    abstract List<Memory> memories();

    /** The algorithm this operation dispatches, if any. */
    Algorithm algorithm() {
        return null;
    }

    static List<Memory> nonEmpty(String op, List<? extends Memory> memories) {
        if (memories == null || memories.isEmpty()) {
            throw new IllegalArgumentException(op + " needs at least one tensor or image");
        }
        for (Memory m : memories) {
            if (m == null) {
                throw new IllegalArgumentException(op + ": null tensor in the list");
            }
        }
        return List.copyOf(memories);
    }
}
