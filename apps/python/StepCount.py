# GXF's Python tick counter (gxf/python/tests/StepCount.py, same API): stop() fails unless the entity ticked
# exactly expected_count times.
from gxf.python_codelet import CodeletAdapter


class StepCount(CodeletAdapter):
    """Counts tick() calls and checks the count against the 'expected_count' parameter in stop()."""

    def start(self):
        self.params = self.get_params()
        self.expected_count = int(self.params["expected_count"])
        self.current_count = 0

    def tick(self):
        self.current_count += 1
        return

    def stop(self):
        if self.current_count != self.expected_count:
            raise Exception(
                "Codelet didn't tick expected number of times!"
                "\nExpected tick count = {}\nCodelet tick count = {}\n".format(
                    self.expected_count, self.current_count
                )
            )
        else:
            pass
