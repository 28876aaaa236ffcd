# Tensor access from Python codelets: host tensors through memoryview, device tensors through to_host().
from gxf.python_codelet import CodeletAdapter
from gxf.core import MessageEntity
from gxf.std import (Allocator, MemoryStorageType, PrimitiveType, Receiver, Shape, Tensor, TensorDescription,
                     Timestamp, Transmitter)


class TensorTx(CodeletAdapter):
    """Per tick n (from 0): a [2, 3] float32 host tensor 'values' holding n + 0.5 * i, published with acqtime 100 + n."""

    def start(self):
        p = self.get_params()
        self.tx = Transmitter.get(self.context(), self.cid(), p["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), p["allocator"])
        self.n = 0

    def tick(self):
        msg = MessageEntity(self.context())
        t = Tensor.add_to_entity(msg, "values")
        # as GXF's StreamGenerator.py: reshaping an allocated tensor gives its memory back (the pool has 8 blocks)
        for _ in range(10):
            t.reshape_custom([4], PrimitiveType.kInt8, 1, None, MemoryStorageType.kHost, self.pool)
        t.reshape(TensorDescription("values", MemoryStorageType.kHost, Shape([2, 3]), PrimitiveType.kFloat32, 4),
                  self.pool)
        view = t.memoryview()
        assert view.format == "f" and view.shape == (2, 3), (view.format, view.shape)
        for i in range(6):
            view[i // 3, i % 3] = self.n + 0.5 * i
        assert len(Tensor.find_all_from_entity(msg)) == 1, Tensor.find_all_from_entity(msg)
        self.tx.publish(msg, 100 + self.n)
        self.n += 1


class TensorDoubler(CodeletAdapter):
    """Receives 'values', adds 1 to it in place through a flat view, adds an int32 tensor 'doubled' holding twice the
    received values (rounded down) and forwards the message, keeping its acqtime."""

    def start(self):
        self.rx = self.get_receivers()[0]
        self.tx = self.get_transmitters()[0]
        self.pool = self.get_allocators()[0]

    def tick(self):
        msg = self.rx.receive()
        if not msg:
            raise Exception("no message")
        acqtime, pubtime = Timestamp.get_from_entity(msg)
        values = Tensor.get_from_entity(msg, "values")
        if values.shape() != Shape([2, 3]) or values.element_type() != PrimitiveType.kFloat32:
            raise Exception("unexpected tensor %r" % values)
        flat = values.memoryview().cast("B").cast("f")
        for i in range(len(flat)):
            flat[i] += 1.0
        try:
            values.reshape_custom([6], PrimitiveType.kFloat32, 4, None, MemoryStorageType.kHost, self.pool)
            raise Exception("a received tensor was reallocated")
        except ValueError:
            pass
        doubled = Tensor.add_to_entity(msg, "doubled")
        doubled.reshape_custom([6], PrimitiveType.kInt32, 4, None, MemoryStorageType.kHost, self.pool)
        dst = doubled.memoryview()
        for i in range(6):
            dst[i] = int(2 * (flat[i] - 1.0))
        self.tx.publish(msg, acqtime)


class DeviceCheck(CodeletAdapter):
    """Receives StreamGenerator's host and device messages of one tick and checks every tensor, the device ones read
    through to_host(), against the generator's formula ((tick * 31 + row * 7) % 1000) - 500, exactly."""

    def start(self):
        p = self.get_params()
        self.host = Receiver.get(self.context(), self.cid(), p["host"])
        self.device = Receiver.get(self.context(), self.cid(), p["device"])
        self.tick_number = 0

    def tick(self):
        self.tick_number += 1
        expected = [float(((self.tick_number * 31 + row * 7) % 1000) - 500) for row in range(1024)]
        for msg, storage in ((self.host.receive(), "host"), (self.device.receive(), "device")):
            tensors = Tensor.find_all_from_entity(msg)
            if len(tensors) != 2:
                raise Exception("%d tensors in the %s message" % (len(tensors), storage))
            for t in tensors:
                if t.storage_type().value != storage or t.shape() != Shape([1024, 1]):
                    raise Exception("unexpected %r" % t)
                if storage == "device":
                    try:
                        t.memoryview()
                        raise Exception("memoryview() of a device tensor must fail")
                    except ValueError as e:
                        if "to_host()" not in str(e):
                            raise
                host = t.to_host()
                got = list(host.memoryview().cast("B").cast("f"))
                if got != expected:
                    raise Exception("tick %d %s tensor differs at row %d" % (self.tick_number, storage,
                                    next(i for i in range(1024) if got[i] != expected[i])))


class Introspect(CodeletAdapter):
    """Per tick, publishes an int64 tensor 'facts': execution count, first tick (0/1), execution timestamp, delta
    time in ns, eid, cid and get_clock().timestamp(); checks its name and parameters itself."""

    def start(self):
        if self.name() != "introspect":
            raise Exception("name() is %r" % self.name())
        params = self.get_params()
        if params != {"nested": {"a": [1, 2]}, "text": "x", "transmitter": "out", "allocator": "pool/host"}:
            raise Exception("get_params() is %r" % params)
        self.tx = Transmitter.get(self.context(), self.cid(), params["transmitter"])
        self.pool = Allocator.get(self.context(), self.cid(), params["allocator"])
        if [t.name() for t in self.get_transmitters()] != ["source/out"] or self.get_receivers() != []:
            raise Exception("queue lists %r %r" % (self.get_transmitters(), self.get_receivers()))

    def tick(self):
        msg = MessageEntity(self.context())
        facts = Tensor.add_to_entity(msg, "facts")
        facts.reshape_custom([7], PrimitiveType.kInt64, 8, None, MemoryStorageType.kHost, self.pool)
        v = facts.memoryview()
        v[0] = self.get_execution_count()
        v[1] = 1 if self.is_first_tick() else 0
        v[2] = self.get_execution_timestamp()
        v[3] = round(self.get_delta_time() * 1e9)
        v[4] = self.eid()
        v[5] = self.cid()
        v[6] = self.get_clock().timestamp()
        self.tx.publish(msg, 7)
