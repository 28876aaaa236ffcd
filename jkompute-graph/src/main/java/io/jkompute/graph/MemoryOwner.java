package io.jkompute.graph;

/** Closes the memory behind a tensor (a pool block, a core tensor), turning checked failures into one message. */
final class MemoryOwner {
    private MemoryOwner() {
    }

    static void close(AutoCloseable owner, Object tensor) {
        if (owner == null) {
            return;
        }
        try {
            owner.close();
        } catch (Exception e) {
            throw new IllegalStateException("closing the memory of " + tensor + " failed", e);
        }
    }
}
