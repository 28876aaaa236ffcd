# A pair of matrices per tick, as tensors made from arrays without a copy: A (rows x cols, A[i, j] = i * cols + j)
# and B = A transposed (made contiguous). transmitter0 gets the pair as numpy arrays; transmitter1 as numpy arrays
# too ('device1: cpu', the default) or as CuPy arrays in device memory ('device1: gpu'). With use_array_interface the
# tensors come from Tensor.as_tensor (__array_interface__ / __cuda_array_interface__), else Tensor.from_dlpack.
import numpy as np

from gxf.core import MessageEntity
from gxf.python_codelet import CodeletAdapter
from gxf.std import Tensor, Transmitter


class TensorPairGenerator(CodeletAdapter):
    def start(self):
        self.params = self.get_params()
        self.txs = [Transmitter.get(self.context(), self.cid(), self.params[f"transmitter{i}"]) for i in range(2)]
        self.use_array_interface = bool(self.params.get("use_array_interface", False))
        self.shape = (int(self.params.get("rows", 16)), int(self.params.get("cols", 64)))
        self.dtype = np.dtype(self.params.get("dtype", "f"))
        self.xp1 = np
        if self.params.get("device1", "cpu") == "gpu":
            import cupy
            self.xp1 = cupy

    def tick(self):
        a = np.arange(self.shape[0] * self.shape[1], dtype=self.dtype).reshape(self.shape)
        b = np.ascontiguousarray(a.transpose())
        for tx, xp, prefix in ((self.txs[0], np, "host_tensor"), (self.txs[1], self.xp1, "tensor")):
            msg = MessageEntity(self.context())
            for i, arr in enumerate((xp.asarray(a), xp.asarray(b))):
                tensor = Tensor.as_tensor(arr) if self.use_array_interface else Tensor.from_dlpack(arr)
                Tensor.add_to_entity(msg, tensor, f"{prefix}{i + 1}")
            tx.publish(msg)
