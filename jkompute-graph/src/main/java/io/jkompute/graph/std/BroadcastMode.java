package io.jkompute.graph.std;

/** How {@link Broadcast} distributes messages (GXF's BroadcastMode: Broadcast = 0, RoundRobin = 1). */
public enum BroadcastMode {
    /** Every message goes to every transmitter of the entity. */
    Broadcast,
    /** Each message goes to the next transmitter in turn. */
    RoundRobin
}
