package io.jkompute.python;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Records the int64 'facts' tensors of introspect.yaml's Python codelet, with each message's acqtime. */
public class FactsRecorder extends CodeletAdapter {
    final List<String> seen = new ArrayList<>();

    @Override
    public void tick() {
        Message m = receivers().get(0).receive();
        long[] facts = m.get(HostTensor.class, "facts").data().toArray(ValueLayout.JAVA_LONG);
        seen.add(m.timestamp().acqtime() + " " + Arrays.toString(facts));
    }
}
