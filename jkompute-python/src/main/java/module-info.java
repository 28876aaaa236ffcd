/**
 * Python codelets for jkompute graphs: GXF's {@code nvidia::gxf::PyCodeletV0} runs a user's Python class in the
 * user's own CPython, embedded in the JVM through the FFM API, with a {@code gxf} package giving GXF's Python codelet
 * API.
 */
module io.jkompute.python {
    requires io.jkompute.graph;
    requires io.jkompute.graph.cuda;
    requires org.slf4j;
    requires org.snakeyaml.engine.v2;

    exports io.jkompute.python;

    provides io.jkompute.graph.GraphExtension with io.jkompute.python.PythonExtension;
}
