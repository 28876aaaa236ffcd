# jkompute's VerifyEqual in Python (the codelet the GXF Python codelet guide describes): receives one message on
# each of two receivers, takes their tensors, copies device tensors to the host and asserts that the data is equal.
# With 'expect_stream: true' it also checks every value against StreamGenerator.py's formula, so a run in which both
# sides are wrong the same way still fails.
import numpy as np

from gxf.python_codelet import CodeletAdapter
from gxf.std import MemoryStorageType, Receiver, Tensor


def as_host_array(tensor):
    if tensor.storage_type() == MemoryStorageType.kDevice:
        return np.array(tensor.to_host())       # device memory read back into host memory
    return np.asarray(tensor)                  # host memory as it is: no copy


class VerifyEqual(CodeletAdapter):
    def start(self):
        self.params = self.get_params()
        self.rxs = [Receiver.get(self.context(), self.cid(), self.params[f"receiver{i}"]) for i in range(2)]
        self.expect_stream = bool(self.params.get("expect_stream", False))
        self.count = 0

    def tick(self):
        in0 = self.rxs[0].receive()
        in1 = self.rxs[1].receive()
        tensors0 = Tensor.find_all_from_entity(in0)
        tensors1 = Tensor.find_all_from_entity(in1)
        assert len(tensors0) == len(tensors1) and tensors0, (len(tensors0), len(tensors1))
        self.count += 1
        for t0, t1 in zip(tensors0, tensors1):
            assert t0.shape() == t1.shape(), (t0.shape(), t1.shape())
            assert t0.element_type() == t1.element_type()
            a0, a1 = as_host_array(t0), as_host_array(t1)
            assert np.array_equal(a0, a1), "tensors differ"
            if self.expect_stream:
                rows = np.arange(a0.shape[0], dtype=np.int64)
                expected = ((self.count * 31 + rows * 7) % 1000 - 500).astype(np.float32).reshape(a0.shape)
                assert np.array_equal(a0, expected), "tick %d: not StreamGenerator's values" % self.count
