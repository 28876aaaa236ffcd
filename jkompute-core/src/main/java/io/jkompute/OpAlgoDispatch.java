package io.jkompute;

import java.util.List;

/**
 * Runs an algorithm: a barrier orders it after earlier work in the sequence, then bind, push constants, dispatch.
 * Push constants given here apply to this dispatch only (Kompute overwrote the algorithm's stored values).
 */
public sealed class OpAlgoDispatch extends Op permits OpMult {
    final Algorithm algorithm;
    private final Constants push;

    /** Dispatches {@code algorithm} with its stored push constants. */
    public OpAlgoDispatch(Algorithm algorithm) {
        this(algorithm, null);
    }

    /** Dispatches with these push constants; their size must be the size the algorithm was built with. */
    public OpAlgoDispatch(Algorithm algorithm, Constants pushConstants) {
        if (algorithm == null) {
            throw new IllegalArgumentException("OpAlgoDispatch needs an algorithm");
        }
        algorithm.checkOpen();
        if (pushConstants != null) {
            algorithm.checkPushSize(pushConstants);
        }
        this.algorithm = algorithm;
        this.push = pushConstants;
    }

    @Override
    void record(CommandRecorder rec) {
        rec.beforeCompute();
        algorithm.recordDispatch(rec, push);
    }

    @Override
    List<Memory> memories() {
        return algorithm.memories();
    }

    @Override
    Algorithm algorithm() {
        return algorithm;
    }
}
