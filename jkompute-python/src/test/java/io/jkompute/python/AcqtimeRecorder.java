package io.jkompute.python;

import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.Message;
import java.util.ArrayList;
import java.util.List;

/** Records the acqtime of every message it receives, in order (message-path.yaml). */
public class AcqtimeRecorder extends CodeletAdapter {
    final List<Long> seen = new ArrayList<>();

    @Override
    public void tick() {
        Message m = receivers().get(0).receive();
        seen.add(m.timestamp().acqtime());
    }
}
