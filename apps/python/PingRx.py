# GXF's Python ping receiver (gxf/python/tests/PingRx.py, same API): fails when a tick finds no message.
from gxf.python_codelet import CodeletAdapter
from gxf.std import Receiver
from gxf.std import Clock


class PingRx(CodeletAdapter):
    """Receives a message on the receiver named by the 'receiver' parameter on every tick()."""

    def start(self):
        self.params = self.get_params()
        self.rx = Receiver.get(self.context(),\
                               self.cid(),\
                               self.params['receiver'])
        self.clock = Clock.get(self.context(), self.cid(), self.params['clock'])
        return

    def tick(self):
        msg = self.rx.receive()
        if(not msg):
            raise Exception("Didn't get message")
        return

    def stop(self):
        pass
