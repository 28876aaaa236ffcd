package io.jkompute.bench;

/** A correctness check against the CPU reference, run on fresh random data before anything is timed. */
public record Check(String suite, String name, boolean passed, String detail) {}
