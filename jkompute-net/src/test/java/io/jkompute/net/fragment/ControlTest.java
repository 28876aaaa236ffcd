package io.jkompute.net.fragment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jkompute.graph.StopReason;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The typed control protocol's one codec: every message round-trips; malformed text is one clear exception. */
class ControlTest {
    @Test
    void everyMessageRoundTripsThroughItsWireText() {
        List<Control> all = List.of(
                new Control.Register("127.0.0.1:1/pid 2", "127.0.0.1:1", "127.0.0.1", List.of("a", "b"),
                        List.of(10001, 10002), "abc", 2),
                new Control.Reject("no = way\nreally \\ no"),
                new Control.Assign(List.of("a"), Map.of("rx/in", "127.0.0.1:10001", "b/in", "10.0.0.2:3"),
                        "127.0.0.1", true),
                new Control.Loaded("w", "a", 12), new Control.Start(),
                new Control.Done("w", "a", StopReason.COMPLETED, "", 5, "{\"x\": 1}"),
                new Control.Failed("w", "a", "run", "boom"), new Control.Stop(true, "why"),
                new Control.Bye("w"), new Control.Heartbeat("driver"));
        for (Control c : all) {
            byte[] wire = c.encode().encode();
            assertEquals(c, Control.decode(ControlMessage.decode(wire, 0, wire.length)), c.toString());
        }
    }

    @Test
    void malformedMessagesAreOneClearException() {
        for (String text : List.of("NOPE", "DONE\nid=w\nfragment=a\nreason=SOMETIMES\nduration_ns=1",
                "DONE\nid=w\nfragment=a\nreason=COMPLETED\nduration_ns=soon", "REGISTER\nid=w",
                "REGISTER\nid=w\ncontrol=c\naddress=a\nports=1,99999\ndigest=d\npid=1", "FAILED\nid=w\nfragment=a"
                        + "\nphase=later\nerror=e", "ASSIGN\nfragments=a\nendpoints=broken\nbind=b",
                "STOP\nabort=perhaps", "LOADED\nid=w\nfragment=a", "HEARTBEAT\nno equals sign",
                "BYE\nid=a\nid=b")) {
            byte[] b = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Control.decode(ControlMessage.decode(b, 0, b.length)), text);
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), text);
        }
    }
}
