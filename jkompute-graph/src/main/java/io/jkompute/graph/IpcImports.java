package io.jkompute.graph;

/**
 * Device buffers of other processes on the same device, opened from their {@link DeviceBuffer#ipcHandle() handles}
 * and kept open (opening one costs about as much as copying megabytes), from a
 * {@link DeviceMemoryProvider#openIpcImports}. Closing it unmaps them all; the other processes' memory is not freed.
 * Not thread-safe: one receiving thread uses it.
 */
public interface IpcImports extends AutoCloseable {
    /**
     * Copies {@code bytes} starting {@code offset} bytes into the buffer that {@code handle} names into the start of
     * {@code target}, on the device, and waits until the copy has finished: afterwards the other process may reuse
     * its buffer.
     *
     * The owner of the buffer must keep it allocated and unchanged until this returns: CUDA does not tell a handle of
     * memory its owner has since freed from a live one (it opens), so an owner that frees early makes this copy read
     * whatever the memory holds then.
     *
     * @throws IllegalArgumentException when the handle is malformed, is of another device, names memory that cannot
     *                                  be opened (a forged handle, or one of this very process), or the range does
     *                                  not fit the handle's buffer or {@code target}; nothing is copied then
     */
    void copy(byte[] handle, long offset, long bytes, DeviceBuffer target);

    /**
     * The copy {@link #copy} makes, queued on the device without waiting for it: work queued later on
     * {@code target}'s memory, through a tensor made from it, runs after the copy, and the other process may reuse its
     * buffer once {@link Pending#done()} says so. A receiver that waited for each copy would keep the device idle while
     * it hands the message on and takes in the next one. Same checks and exceptions as {@link #copy}, all made before
     * anything is queued; the owner of the buffer must keep it unchanged until the copy is done.
     */
    Pending copyQueued(byte[] handle, long offset, long bytes, DeviceBuffer target);

    /** A copy queued by {@link #copyQueued}. */
    interface Pending extends AutoCloseable {
        /** Whether the device has finished the copy; never waits. */
        boolean done();

        /** Waits for the copy if it has not finished yet, then lets go of what tracked it; again, it does nothing. */
        @Override
        void close();
    }

    /** How many other-process buffers are open now. */
    int openCount();

    /** Unmaps every opened buffer. */
    @Override
    void close();
}
