package io.jkompute.graph.std;

/** Checks worker_thread_number (GXF allows up to 128). */
final class Workers {
    private Workers() {
    }

    static void check(long n) {
        if (n < 1 || n > 128) {
            throw new IllegalArgumentException("parameter 'worker_thread_number' must be between 1 and 128, got " + n);
        }
    }
}
