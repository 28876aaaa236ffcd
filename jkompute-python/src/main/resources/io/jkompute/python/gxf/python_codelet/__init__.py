"""Python codelets: subclass CodeletAdapter and name the class in a PyCodeletV0 component."""
from gxf.python_codelet.codelet import CodeletAdapter, PyData

__all__ = ["CodeletAdapter", "PyData"]
