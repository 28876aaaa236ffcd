package io.jkompute.graph.testing;

import io.jkompute.graph.CodeletAdapter;

/** Ticks and does nothing (leaves its messages in the queue). */
public class Idle extends CodeletAdapter {
    @Override
    public void tick() {
    }
}
