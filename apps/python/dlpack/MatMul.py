# Multiplies the two tensors of each received message with numpy ('device: cpu') or CuPy ('device: gpu') and sends
# the product as a tensor made from the result array without a copy. With use_array_interface the inputs are read
# through np.asarray / cupy.asarray (__array_interface__ / __cuda_array_interface__), else through from_dlpack.
import numpy as np

from gxf.core import MessageEntity
from gxf.python_codelet import CodeletAdapter
from gxf.std import Receiver, Tensor, Transmitter


class MatMul(CodeletAdapter):
    def start(self):
        self.params = self.get_params()
        self.rx = Receiver.get(self.context(), self.cid(), self.params["rx"])
        self.tx = Transmitter.get(self.context(), self.cid(), self.params["tx"])
        self.use_array_interface = bool(self.params.get("use_array_interface", False))
        device = self.params.get("device", "cpu")
        if not isinstance(device, str) or device.lower() not in ("cpu", "gpu"):
            raise ValueError("device parameter must be one of {'cpu', 'gpu'}")
        if device.lower() == "gpu":
            import cupy
            self.xp = cupy
        else:
            self.xp = np

    def tick(self):
        xp = self.xp
        in_tensors = Tensor.find_all_from_entity(self.rx.receive())
        np.testing.assert_equal(len(in_tensors), 2)
        if self.use_array_interface:
            in0, in1 = xp.asarray(in_tensors[0]), xp.asarray(in_tensors[1])
        else:
            in0, in1 = xp.from_dlpack(in_tensors[0]), xp.from_dlpack(in_tensors[1])
        out = xp.dot(in0, in1)
        out_msg = MessageEntity(self.context())
        Tensor.add_to_entity(out_msg, Tensor.as_tensor(out) if self.use_array_interface else Tensor.from_dlpack(out),
                             "")
        self.tx.publish(out_msg)
