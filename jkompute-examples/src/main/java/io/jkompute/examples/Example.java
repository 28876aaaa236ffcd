package io.jkompute.examples;

import java.io.PrintStream;

/** A runnable example: {@code ./jkompute example NAME}. */
public interface Example {
    /** The name on the command line. */
    String name();

    /** One line saying what it shows. */
    String description();

    /** Runs on the default device, printing what it computed. */
    void run(PrintStream out);
}
