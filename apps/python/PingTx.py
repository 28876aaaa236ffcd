# GXF's Python ping sender (gxf/python/tests/PingTx.py, same API): one empty message per tick, acqtime 1.
from gxf.python_codelet import CodeletAdapter
from gxf.core import MessageEntity
from gxf.std import Transmitter


class PingTx(CodeletAdapter):
    """Publishes an empty message on the transmitter named by the 'transmitter' parameter on every tick()."""

    def start(self):
        self.params = self.get_params()
        self.tx = Transmitter.get(self.context(),\
                                  self.cid(),\
                                  self.params["transmitter"])
        pass

    def tick(self):
        msg = MessageEntity(self.context())
        self.tx.publish(msg, 1)
        return

    def stop(self):
        pass
