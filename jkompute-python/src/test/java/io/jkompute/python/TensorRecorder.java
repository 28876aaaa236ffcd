package io.jkompute.python;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Records what the Python codelets of tensors.yaml sent: acqtime, 'values' (float32) and 'doubled' (int32). */
public class TensorRecorder extends CodeletAdapter {
    final List<String> seen = new ArrayList<>();

    @Override
    public void tick() {
        Message m = receivers().get(0).receive();
        HostTensor values = m.get(HostTensor.class, "values");
        HostTensor doubled = m.get(HostTensor.class, "doubled");
        int[] ints = doubled.data().toArray(ValueLayout.JAVA_INT);
        seen.add(m.timestamp().acqtime() + " " + Arrays.toString(values.shape()) + Arrays.toString(
                values.toFloatArray()) + " " + doubled.dataType() + Arrays.toString(doubled.shape())
                + Arrays.toString(ints));
    }
}
