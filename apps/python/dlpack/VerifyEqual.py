# Compares the product computed on transmitter0's side (receiver0, numpy) with the one from transmitter1's side
# (receiver1, numpy or CuPy) to within rtol 1e-5, and both with the exact product of TensorPairGenerator's matrices
# (rows, cols), so every frame is checked against a known answer.
import numpy as np

from gxf.python_codelet import CodeletAdapter
from gxf.std import MemoryStorageType, Receiver, Tensor


class VerifyEqual(CodeletAdapter):
    def start(self):
        self.params = self.get_params()
        self.rxs = [Receiver.get(self.context(), self.cid(), self.params[f"receiver{i}"]) for i in range(2)]
        self.use_array_interface = bool(self.params.get("use_array_interface", False))
        rows, cols = int(self.params.get("rows", 16)), int(self.params.get("cols", 64))
        a = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)
        self.expected = a @ a.T

    def _array(self, tensor):
        if tensor.storage_type() == MemoryStorageType.kDevice:
            import cupy
            return (cupy.asarray(tensor) if self.use_array_interface else cupy.from_dlpack(tensor)).get()
        return np.asarray(tensor) if self.use_array_interface else np.from_dlpack(tensor)

    def tick(self):
        in_host = self.rxs[0].receive()
        in_other = self.rxs[1].receive()
        t_host = Tensor.find_all_from_entity(in_host)
        t_other = Tensor.find_all_from_entity(in_other)
        np.testing.assert_equal(len(t_host), 1)
        np.testing.assert_equal(len(t_other), 1)
        host, other = self._array(t_host[0]), self._array(t_other[0])
        np.testing.assert_allclose(other, host, rtol=1e-5)
        np.testing.assert_allclose(host, self.expected, rtol=1e-5)
