# jkompute's StreamGenerator in Python (the codelet the GXF Python codelet guide describes): on every tick two host
# tensors and two device tensors, [1024, 1] float32, reshaped from a TensorDescription; the host ones go out on
# transmitter0 in one message, the device ones on transmitter1 in another. Row r of tick n holds
# ((n * 31 + r * 7) % 1000) - 500 in all four, so a receiver can check every value.
import numpy as np

from gxf.core import MessageEntity
from gxf.python_codelet import CodeletAdapter
from gxf.std import (Allocator, MemoryStorageType, PrimitiveType, Shape, Tensor, TensorDescription, Transmitter)


class StreamGenerator(CodeletAdapter):
    def start(self):
        self.params = self.get_params()
        self.txs = [Transmitter.get(self.context(), self.cid(), self.params[f"transmitter{i}"]) for i in range(2)]
        self.allocators = [Allocator.get(self.context(), self.cid(), self.params[f"allocator{i}"])
                           for i in range(2)]
        self.n = 0

    def tick(self):
        self.n += 1
        values = ((self.n * 31 + np.arange(1024, dtype=np.int64) * 7) % 1000 - 500).astype(np.float32)
        values = values.reshape(1024, 1)
        host_msg = MessageEntity(self.context())
        dev_msg = MessageEntity(self.context())
        for msg, storage, allocator, name in ((host_msg, MemoryStorageType.kHost, self.allocators[0], "host_tensor"),
                                              (dev_msg, MemoryStorageType.kDevice, self.allocators[1], "cuda_tensor")):
            description = TensorDescription(name=name, storage_type=storage, shape=Shape([1024, 1]),
                                            element_type=PrimitiveType.kFloat32, bytes_per_element=4)
            for _ in range(2):
                tensor = Tensor.add_to_entity(msg, description.name)
                tensor.reshape(description, allocator)
                if storage == MemoryStorageType.kHost:
                    np.asarray(tensor)[...] = values      # a numpy view of the tensor's memory: no copy
                else:
                    tensor.copy_from_host(values)          # device memory is written through a host copy
        self.txs[0].publish(host_msg)
        self.txs[1].publish(dev_msg)
