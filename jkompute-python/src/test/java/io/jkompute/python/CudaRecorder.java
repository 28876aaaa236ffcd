package io.jkompute.python;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.GraphTensor;
import io.jkompute.graph.HostTensor;
import io.jkompute.graph.Message;
import io.jkompute.graph.cuda.CudaDeviceTensor;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** Records cuda-check.yaml's messages: the CUDA tensor's own pointer and values beside the pointers Python saw. */
public class CudaRecorder extends CodeletAdapter {
    final List<long[]> pointers = new ArrayList<>();
    final List<float[]> values = new ArrayList<>();

    @Override
    public void tick() {
        Message m = receivers().get(0).receive();
        CudaDeviceTensor t = CudaDeviceTensor.of(m.get(GraphTensor.class, "device"));
        long[] seen = m.get(HostTensor.class, "seen").data().toArray(ValueLayout.JAVA_LONG);
        pointers.add(new long[] {t.pointer(), seen[0], seen[1], seen[2], seen[3]});
        try (Arena a = Arena.ofConfined()) {
            values.add(t.toHost(a).toArray(ValueLayout.JAVA_FLOAT));
        }
    }
}
