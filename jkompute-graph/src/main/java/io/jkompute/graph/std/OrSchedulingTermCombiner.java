package io.jkompute.graph.std;

import io.jkompute.graph.Registrar;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.SchedulingCondition;
import io.jkompute.graph.SchedulingTerm;
import java.util.Collection;
import java.util.List;

/**
 * OR-combines the listed {@code terms} of its entity (NEVER still dominates, any READY wins, then WAIT_EVENT,
 * then WAIT_TIME, else WAIT); the result is AND-ed with the entity's other terms.
 */
public final class OrSchedulingTermCombiner extends SchedulingTerm {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public OrSchedulingTermCombiner() {
    }

    private Parameter<List<SchedulingTerm>> terms;

    @Override
    protected void registerInterface(Registrar r) {
        terms = r.handles("terms", SchedulingTerm.class, "terms to OR-combine");
    }

    @Override
    protected void initialize() {
        if (terms.get().isEmpty()) {
            throw new IllegalArgumentException("parameter 'terms' must list at least one scheduling term");
        }
        for (SchedulingTerm t : terms.get()) {
            if (t.entity() != entity()) {
                throw new IllegalArgumentException("term '" + t.path() + "' belongs to another entity");
            }
            if (t == this) {
                throw new IllegalArgumentException("a combiner cannot list itself");
            }
        }
    }

    @Override
    public SchedulingCondition check(long now) {
        SchedulingCondition c = null;
        for (SchedulingTerm t : terms.get()) {
            SchedulingCondition tc = t.check(now);
            c = c == null ? tc : c.or(tc);
        }
        return c;
    }

    @Override
    protected Collection<SchedulingTerm> combinedTerms() {
        return terms.get();
    }

    @Override
    public String describeState(long now) {
        StringBuilder sb = new StringBuilder(check(now).toString()).append(" = OR of");
        for (SchedulingTerm t : terms.get()) {
            sb.append(" [").append(t.name()).append(": ").append(t.describeState(now)).append(']');
        }
        return sb.toString();
    }
}
