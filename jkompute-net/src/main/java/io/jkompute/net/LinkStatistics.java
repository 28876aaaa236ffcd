package io.jkompute.net;

/**
 * What crossed one link: messages {@code sent} by the transmitter, {@code delivered} into the remote queue,
 * {@code dropped} by the remote queue's policy 0 or 1 (so sent − delivered = dropped on a healthy link), payload
 * {@code bytes}, and frames {@code rejected} at this end because they did not come from the linked peer (no valid
 * MAC, another sender, a replay): they changed nothing.
 */
public record LinkStatistics(String link, long sent, long delivered, long dropped, long bytes, long rejected) {
    /** Counts of a link where no frame was rejected. */
    public LinkStatistics(String link, long sent, long delivered, long dropped, long bytes) {
        this(link, sent, delivered, dropped, bytes, 0);
    }

    @Override
    public String toString() {
        return link + ": " + sent + " sent, " + delivered + " delivered, " + dropped + " dropped, " + bytes + " bytes"
                + (rejected == 0 ? "" : ", " + rejected + " foreign frames rejected");
    }
}
