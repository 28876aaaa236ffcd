package io.jkompute.python;

import io.jkompute.graph.GraphException;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Value;

/** Turns GraalPy's exceptions into ones that say where in the user's .py file things went wrong. */
final class PythonErrors {
    /** Marks the frames of the bundled gxf package, skipped when naming the line to blame. */
    private static final String GXF_FILES = "<jkompute>/";

    private PythonErrors() {
    }

    static RuntimeException translate(PolyglotException e) {
        if (e.isHostException()) {
            Throwable host = e.asHostException();
            if (host instanceof GraphException g) {
                return g; // the graph's own failures (e.g. a queue overflow) keep their type and wording
            }
            // the gxf package turns bad arguments into Python exceptions (with the user's line) before Java sees
            // them; what still arrives here came from deeper down and keeps its own type
            return host instanceof RuntimeException r ? r : new IllegalStateException(host.getMessage(), host);
        }
        if (!e.isGuestException() || e.getGuestObject() == null) {
            return new IllegalStateException("Python: " + e.getMessage(), e);
        }
        Value exc = e.getGuestObject();
        String type = exc.getMetaObject().getMetaSimpleName();
        String message = String.valueOf(exc.invokeMember("__str__").asString());
        String file = null;
        int line = 0;
        if (exc.hasMember("filename") && exc.hasMember("lineno") && !exc.getMember("filename").isNull()
                && exc.getMember("lineno").isNumber()) {
            // SyntaxError and its kind point at the offending source themselves
            file = exc.getMember("filename").asString();
            line = exc.getMember("lineno").asInt();
            if (exc.hasMember("msg") && exc.getMember("msg").isString()) {
                message = exc.getMember("msg").asString();
            }
        } else {
            for (Value tb = exc.getMember("__traceback__"); tb != null && !tb.isNull(); tb = tb.getMember("tb_next")) {
                String f = tb.getMember("tb_frame").getMember("f_code").getMember("co_filename").asString();
                int l = tb.getMember("tb_lineno").asInt();
                if (!f.startsWith(GXF_FILES)) {
                    file = f;
                    line = l;
                }
            }
        }
        return new PythonCodeletException(file == null ? null : baseName(file), line, type, message, traceback(e), e);
    }

    private static String traceback(PolyglotException e) {
        StringBuilder sb = new StringBuilder();
        for (PolyglotException.StackFrame f : e.getPolyglotStackTrace()) {
            if (f.isGuestFrame()) {
                sb.append("  at ").append(f).append('\n');
            }
        }
        return sb.toString();
    }

    private static String baseName(String file) {
        int slash = file.lastIndexOf('/');
        return slash < 0 ? file : file.substring(slash + 1);
    }
}
