package io.jkompute.net;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The class path and class-data flags of the multi-process tests' child JVMs. Children start from a dynamic CDS
 * archive of the classes a linked graph loads, which takes about a third off a child's CPU time (a two-process ping:
 * 1.66 → 1.16 CPU-seconds for the pair on the 2-core development machine), and the module's tests start ~150 children.
 * CDS maps classes from jars only, while surefire's class path names the module's classes as folders: these are
 * packed into jars first. One archive serves every test JVM of the module (a file lock orders them) and is made again
 * when anything on the class path changed. Where any step fails, children run on the plain class path.
 */
public final class ChildClasses {
    private static ChildClasses prepared;

    /** The class path children are started with. */
    public final String classPath;
    /** JVM options that map the archive (empty without one). */
    public final List<String> flags;

    private ChildClasses(String classPath, List<String> flags) {
        this.classPath = classPath;
        this.flags = flags;
    }

    /**
     * Makes the JVMs that jkompute-net itself starts (benchmark peers, fragment workers) start as the tests' own
     * children do: jarred classes and their class-data archive.
     */
    public static void startChildrenFromArchive() {
        ChildClasses c = get();
        io.jkompute.net.internal.ChildJvm.startChildrenWith(c.classPath, c.flags);
    }

    /** The class path and flags, prepared by the first caller of this JVM. */
    public static synchronized ChildClasses get() {
        if (prepared == null) {
            prepared = prepare(Jvm.classPath());
        }
        return prepared;
    }

    private static ChildClasses prepare(String classPath) {
        Path root = Path.of("target", "child-jvm");
        if (!Files.isDirectory(root.getParent()) || Boolean.getBoolean("jkompute.test.noChildArchive")) {
            return new ChildClasses(classPath, List.of()); // not under Maven (the GPU host's one-JVM suite)
        }
        try {
            Files.createDirectories(root);
            try (FileChannel lockFile = FileChannel.open(root.resolve("lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE); FileLock lock = lockFile.lock()) {
                List<String> entries = List.of(classPath.split(java.io.File.pathSeparator));
                Path dir = root.resolve(key(entries));
                Path archive = dir.resolve("children.jsa");
                List<String> jarred = new ArrayList<>();
                for (int i = 0; i < entries.size(); i++) {
                    Path p = Path.of(entries.get(i));
                    jarred.add(Files.isDirectory(p) ? dir.resolve(i + "-" + p.getFileName() + ".jar").toString()
                            : entries.get(i));
                }
                String jarPath = String.join(java.io.File.pathSeparator, jarred);
                if (!Files.isRegularFile(archive)) {
                    removeOthers(root, dir);
                    Files.createDirectories(dir);
                    for (int i = 0; i < entries.size(); i++) {
                        Path p = Path.of(entries.get(i));
                        if (Files.isDirectory(p)) {
                            jar(p, Path.of(jarred.get(i)));
                        }
                    }
                    train(jarPath, archive);
                }
                return new ChildClasses(jarPath, List.of("-XX:SharedArchiveFile=" + archive.toAbsolutePath(),
                        "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
            }
        } catch (IOException | RuntimeException | InterruptedException e) {
            System.err.println("child JVMs start without a class-data archive: " + e);
            return new ChildClasses(classPath, List.of());
        }
    }

    /** A two-process ping with the archive written at the receiver's exit, moved into place only when complete. */
    private static void train(String jarPath, Path archive) throws IOException, InterruptedException {
        Path partial = archive.resolveSibling("children.jsa.partial");
        int port = Jvm.freePort();
        List<String> noArchive = List.of();
        try (Jvm rx = Jvm.launch("train-rx", jarPath, List.of("-XX:ArchiveClassesAtExit=" + partial,
                "-Xlog:cds=off", "-Xlog:cds+dynamic=off"), RunGraph.class.getName(),
                Jvm.file("src/test/resources/net/seq-rx.yaml"), "--param", "rx/signal/port=" + port,
                "--param", "rx/count/count=50");
             Jvm tx = Jvm.launch("train-tx", jarPath, noArchive, RunGraph.class.getName(),
                     Jvm.file("src/test/resources/net/seq-tx.yaml"), "--param", "tx/signal/port=" + port,
                     "--param", "tx/count/count=50")) {
            if (tx.await(120) != 0 || rx.await(120) != 0 || !Files.isRegularFile(partial)) {
                throw new IOException("the training run failed:\n" + rx.output() + "\n" + tx.output());
            }
        }
        Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Names the class path's content: each entry with its files' sizes and times, and the JDK. */
    private static String key(List<String> entries) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        StringBuilder s = new StringBuilder(System.getProperty("java.home")).append('\n');
        s.append(Jvm.jitFlags()).append('\n');
        for (String e : entries) {
            Path p = Path.of(e);
            s.append(e).append('\n');
            if (Files.isDirectory(p)) {
                try (Stream<Path> files = Files.walk(p)) {
                    for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                        s.append(p.relativize(f)).append(' ').append(Files.size(f)).append(' ')
                                .append(Files.getLastModifiedTime(f).toMillis()).append('\n');
                    }
                }
            } else if (Files.isRegularFile(p)) {
                s.append(Files.size(p)).append(' ').append(Files.getLastModifiedTime(p).toMillis()).append('\n');
            }
        }
        return HexFormat.of().formatHex(md.digest(s.toString().getBytes(StandardCharsets.UTF_8)), 0, 8);
    }

    private static void jar(Path folder, Path jar) throws IOException {
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
             Stream<Path> files = Files.walk(folder)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                j.putNextEntry(new JarEntry(folder.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, j);
                j.closeEntry();
            }
        }
    }

    /** Archives of earlier class paths: each is tens of MB. */
    private static void removeOthers(Path root, Path keep) throws IOException {
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path d : dirs.filter(Files::isDirectory).filter(d -> !d.equals(keep)).toList()) {
                try (Stream<Path> files = Files.walk(d)) {
                    for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(f);
                    }
                }
            }
        }
    }
}
