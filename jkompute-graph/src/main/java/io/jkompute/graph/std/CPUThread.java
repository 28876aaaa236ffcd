package io.jkompute.graph.std;

import io.jkompute.graph.Component;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.internal.CpuAffinity;
import java.util.BitSet;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GXF's CPUThread resource, put in an entity to pin it. {@code pin_cores} (Holoscan's name: a list of CPU numbers)
 * confines every start, tick and stop of the entity to those CPUs: the executing thread's affinity is set with
 * {@code sched_setaffinity} (FFM, Linux) before and restored after, two system calls (about a microsecond each) per
 * execution. GXF's {@code pin_entity} (run the entity always on one worker thread) needs scheduler support jkompute's
 * schedulers do not have; it is accepted and, without {@code pin_cores}, ignored with a warning. Off Linux
 * {@code pin_cores} is ignored with a warning.
 */
public final class CPUThread extends Component {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public CPUThread() {
    }

    private static final Logger LOG = LoggerFactory.getLogger(CPUThread.class);
    private Parameter<Boolean> pinEntity;
    private Parameter<List<Long>> pinCores;
    private BitSet cpus;

    @Override
    protected void registerInterface(Registrar r) {
        pinEntity = r.parameter("pin_entity", ParameterTypes.BOOL, "keep the entity on one worker thread", false);
        pinCores = r.parameter("pin_cores", ParameterTypes.list(ParameterTypes.INT64),
                "CPUs the entity runs on", List.of());
    }

    @Override
    protected void initialize() {
        if (pinCores.get().isEmpty()) {
            if (pinEntity.get()) {
                LOG.warn("{}: pin_entity ignored: jkompute's schedulers do not bind an entity to one worker thread; "
                        + "give pin_cores to confine it to CPUs", path());
            }
            return;
        }
        BitSet set = new BitSet();
        for (long c : pinCores.get()) {
            if (c < 0 || c >= 1024) {
                throw new IllegalArgumentException("parameter 'pin_cores': CPU " + c + " is not in 0..1023");
            }
            set.set((int) c);
        }
        if (!CpuAffinity.isSupported()) {
            LOG.warn("{}: pin_cores {} ignored: CPU affinity needs Linux", path(), pinCores.get());
            return;
        }
        BitSet allowed = CpuAffinity.current();
        BitSet usable = (BitSet) set.clone();
        usable.and(allowed);
        if (usable.isEmpty()) {
            throw new IllegalArgumentException("parameter 'pin_cores' " + pinCores.get()
                    + ": none of those CPUs is available to this process (allowed: " + allowed + ")");
        }
        cpus = set;
    }

    /** The CPUs the entity is confined to, or null when it is not pinned. */
    public BitSet cpus() {
        return cpus == null ? null : (BitSet) cpus.clone();
    }

    /** Confines the calling thread; returns its previous affinity for {@link #exit}, or null when not pinned. */
    public BitSet enter() {
        if (cpus == null) {
            return null;
        }
        BitSet previous = CpuAffinity.current();
        if (!previous.equals(cpus)) {
            CpuAffinity.set(cpus);
        }
        return previous;
    }

    /** Gives the calling thread back the affinity {@link #enter} returned. */
    public void exit(BitSet previous) {
        if (previous != null && !previous.equals(cpus)) {
            CpuAffinity.set(previous);
        }
    }
}
