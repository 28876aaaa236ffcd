package io.jkompute.graph.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles a {@code .java} codelet file in memory with the JDK compiler and loads the named class, once per JVM for
 * each text of the file: a graph loaded again (a service reloading its app, a benchmark's runs, a test suite) gets the
 * class already compiled, and with it the code the JIT has made of it, instead of a second javac run and a class
 * that starts cold in the interpreter. So graphs loaded from the same file share the class's static fields, as GXF
 * loads an extension library once per process; a file that changed compiles anew.
 */
public final class JavaSourceCompiler {
    private static final int CACHE_MAX = 256;
    private static final ConcurrentHashMap<Key, Class<?>> COMPILED = new ConcurrentHashMap<>();

    private record Key(String sourceSha256, String className, ClassLoader parent, String classPath, String modulePath) {
    }

    private JavaSourceCompiler() {
    }

    /**
     * The class {@code className} of {@code source}, compiled against the running class path / module path the first
     * time this text of the file is asked for with this parent loader.
     */
    public static Class<?> compile(Path source, String className, ClassLoader parent) throws ClassNotFoundException {
        byte[] text;
        Key key;
        try {
            text = Files.readAllBytes(source);
            key = new Key(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text)), className,
                    parent, System.getProperty("java.class.path", ""), System.getProperty("jdk.module.path", ""));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read codelet_file " + source + ": " + e.getMessage(), e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        Class<?> compiled = COMPILED.get(key);
        if (compiled == null) {
            // the text read for the key is the text compiled: a file edited in between cannot be cached under it
            compiled = compileNow(source, new String(text, StandardCharsets.UTF_8), key, className, parent);
            if (COMPILED.size() >= CACHE_MAX) {
                COMPILED.clear();
            }
            Class<?> raced = COMPILED.putIfAbsent(key, compiled);
            compiled = raced != null ? raced : compiled;
        }
        return compiled;
    }

    private static Class<?> compileNow(Path source, String text, Key key, String className, ClassLoader parent)
            throws ClassNotFoundException {
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
            if (!key.classPath().isEmpty()) {
                options.addAll(List.of("-classpath", key.classPath()));
            }
            if (!key.modulePath().isEmpty()) {
                options.addAll(List.of("--module-path", key.modulePath(), "--add-modules", "ALL-MODULE-PATH"));
            }
            StringWriter out = new StringWriter();
            // named by the file's own URI, so that javac's checks of public class names and its messages see the file
            JavaFileObject unit = new SimpleJavaFileObject(source.toUri(), JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return text;
                }
            };
            List<JavaFileObject> units = List.of(unit);
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
