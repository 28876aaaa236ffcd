package io.jkompute.graph.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/** Compiles a {@code .java} codelet file in memory with the JDK compiler and loads the named class. */
public final class JavaSourceCompiler {
    private JavaSourceCompiler() {
    }

    /** Compiles {@code source} (against the running class path / module path) and loads {@code className}. */
    public static Class<?> compile(Path source, String className, ClassLoader parent) throws ClassNotFoundException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        if (compiler == null) {
            throw new IllegalStateException("no Java compiler in this runtime (a JRE?); run on a JDK 25 to load "
                    + "codelet_file " + source);
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Map<String, byte[]> classes = new HashMap<>();
        try (StandardJavaFileManager std = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null);
             MemoryFileManager files = new MemoryFileManager(std, classes)) {
            List<String> options = new ArrayList<>(List.of("-proc:none", "-Xlint:none", "-g"));
            String cp = System.getProperty("java.class.path", "");
            String mp = System.getProperty("jdk.module.path", "");
            if (!cp.isEmpty()) {
                options.addAll(List.of("-classpath", cp));
            }
            if (!mp.isEmpty()) {
                options.addAll(List.of("--module-path", mp, "--add-modules", "ALL-MODULE-PATH"));
            }
            StringWriter out = new StringWriter();
            Iterable<? extends JavaFileObject> units = std.getJavaFileObjects(source.toFile());
            boolean ok = compiler.getTask(out, files, diagnostics, options, null, units).call();
            if (!ok) {
                StringBuilder sb = new StringBuilder("cannot compile " + source + ":");
                for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                    if (d.getKind() == Diagnostic.Kind.ERROR) {
                        sb.append("\n  ").append(source.getFileName()).append(':').append(d.getLineNumber())
                                .append(": ").append(d.getMessage(Locale.ROOT));
                    }
                }
                throw new IllegalArgumentException(sb.toString());
            }
        } catch (IOException e) {
            throw new IllegalStateException("compiler I/O failed for " + source, e);
        }
        ClassLoader loader = new ClassLoader(parent) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                byte[] b = classes.get(name);
                if (b == null) {
                    throw new ClassNotFoundException(name);
                }
                return defineClass(name, b, 0, b.length);
            }
        };
        if (!classes.containsKey(className)) {
            throw new ClassNotFoundException(className + " (the file defines " + classes.keySet() + ")");
        }
        return Class.forName(className, true, loader);
    }

    /** Keeps compiled classes in memory instead of writing .class files. */
    private static final class MemoryFileManager extends ForwardingJavaFileManager<StandardJavaFileManager> {
        private final Map<String, byte[]> classes;

        MemoryFileManager(StandardJavaFileManager std, Map<String, byte[]> classes) {
            super(std);
            this.classes = classes;
        }

        @Override
        public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
                                                   FileObject sibling) {
            return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + kind.extension), kind) {
                @Override
                public OutputStream openOutputStream() {
                    return new ByteArrayOutputStream() {
                        @Override
                        public void close() {
                            classes.put(className, toByteArray());
                        }
                    };
                }
            };
        }
    }
}
