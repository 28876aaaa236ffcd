# Messages through Python codelets on the fast path: a source making MessageEntity objects, a relay receiving each,
# checking what an Entity is and republishing it, while holding the last three it received.
from gxf.core import Entity, MessageEntity
from gxf.python_codelet import CodeletAdapter
from gxf.std import Receiver, Timestamp, Transmitter


class Source(CodeletAdapter):
    def start(self):
        self.tx = Transmitter.get(self.context(), self.cid(), "out")
        self.n = 0

    def tick(self):
        msg = MessageEntity(self.context())
        # odd messages with a float acqtime: publish takes int() of it, as GXF's binding does
        self.tx.publish(msg, self.n if self.n % 2 == 0 else self.n + 0.25)
        self.n += 1


class Relay(CodeletAdapter):
    def start(self):
        self.rx = Receiver.get(self.context(), self.cid(), "in")
        self.tx = Transmitter.get(self.context(), self.cid(), "out")
        self.count = self.get_params()["count"]
        self.held = []
        self.expected = 0

    def tick(self):
        msg = self.rx.receive()
        if not msg or type(msg) is not Entity:
            raise Exception("not a received Entity: %r" % (msg,))
        acq = Timestamp.get_from_entity(msg).acqtime
        if acq != self.expected:
            raise Exception("acqtime %d, expected %d" % (acq, self.expected))
        h = int(msg)
        # compared and hashed as an object, not as its handle
        facts = (msg == msg, msg != msg, msg == h, h == msg, msg != h, hash(msg) == hash(h), repr(msg),
                 str(msg), msg in self.held, len({msg, msg}))
        want = (True, False, False, False, True, False, "Entity(%d)" % h, "Entity(%d)" % h, False, 1)
        if facts != want:
            raise Exception("entity semantics %r, expected %r" % (facts, want))
        if self.expected == 0:
            try:
                self.tx.publish("not a message")
                raise Exception("publish took a str")
            except TypeError as e:
                if str(e) != "publish() takes a MessageEntity, got str":
                    raise
        self.held.append(msg)
        del self.held[:-3]
        self.tx.publish(msg, acq)
        self.expected += 1

    def stop(self):
        if self.expected != self.count:
            raise Exception("relayed %d of %d" % (self.expected, self.count))
        if len(self.held) != 3 or len(set(self.held)) != 3:
            raise Exception("held %r" % (self.held,))
