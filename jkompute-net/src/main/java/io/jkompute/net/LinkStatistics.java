package io.jkompute.net;

/**
 * What crossed one link: messages {@code sent} by the transmitter, {@code delivered} into the remote queue,
 * {@code dropped} by the remote queue's policy 0 or 1 (so sent − delivered = dropped on a healthy link), and
 * payload {@code bytes}.
 */
public record LinkStatistics(String link, long sent, long delivered, long dropped, long bytes) {
    @Override
    public String toString() {
        return link + ": " + sent + " sent, " + delivered + " delivered, " + dropped + " dropped, " + bytes + " bytes";
    }
}
