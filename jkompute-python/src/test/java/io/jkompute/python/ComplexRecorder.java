package io.jkompute.python;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Records complex-tensors.yaml's tensors as Java sees them: type, shape and the (real, imaginary) pairs. */
public class ComplexRecorder extends CodeletAdapter {
    final List<String> seen = new ArrayList<>();

    @Override
    public void tick() {
        Message m = receivers().get(0).receive();
        HostTensor c64 = m.get(HostTensor.class, "c64");
        HostTensor c128 = m.get(HostTensor.class, "c128");
        seen.add(c64.dataType() + Arrays.toString(c64.shape()) + Arrays.toString(c64.data().toArray(
                ValueLayout.JAVA_FLOAT)) + " " + c128.dataType() + Arrays.toString(c128.shape())
                + Arrays.toString(c128.data().toArray(ValueLayout.JAVA_DOUBLE)));
    }
}
