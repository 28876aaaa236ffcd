import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs the code blocks of README.md and every module README, so that an example cannot drift from the code.
 * Run from the repository root: {@code ./jkompute java scripts/CheckDocs.java [FILE.md ...]}.
 *
 * <ul>
 * <li>{@code bash}: run with {@code bash -e} in the repository root; it must exit 0.</li>
 * <li>{@code java}: a block that declares a class is compiled as it stands (and run when it has a {@code main});
 *     any other block is a snippet, compiled inside a {@code main} with the imports below and run.</li>
 * <li>{@code yaml}, {@code python}, {@code json}, {@code xml}: excerpts; an {@code <!-- excerpt: path -->} comment on the line
 *     before the block names the shipped file every non-blank line of the block must appear in (trimmed, in order).</li>
 * <li>A block whose preceding line is {@code <!-- not-run: why -->} is skipped, with its reason printed;
 *     {@code <!-- compile-only: why -->} compiles a java block without running it. Blocks without a language are
 *     text (usage lines) and not checked.</li>
 * </ul>
 */
public final class CheckDocs {
    static final String IMPORTS = """
            import io.jkompute.*;
            import io.jkompute.graph.*;
            import java.lang.foreign.*;
            import java.nio.file.*;
            import java.util.*;
            """;
    static final Pattern MARK = Pattern.compile("<!--\\s*(not-run|compile-only|excerpt):\\s*(.*?)\\s*-->");
    static final long TIMEOUT_S = 300;

    record Block(Path file, int line, String lang, String marker, String arg, String text) {
        String where() {
            return file + ":" + line;
        }
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of("").toAbsolutePath();
        List<Path> files = new ArrayList<>();
        if (args.length > 0) {
            for (String a : args) {
                files.add(Path.of(a));
            }
        } else {
            files.add(Path.of("README.md"));
            try (Stream<Path> s = Files.list(root)) {
                s.filter(p -> Files.isRegularFile(p.resolve("README.md"))).sorted()
                        .forEach(p -> files.add(root.relativize(p.resolve("README.md"))));
            }
        }
        int failed = 0;
        int checked = 0;
        int skipped = 0;
        for (Path f : files) {
            for (Block b : blocks(f)) {
                if (b.lang().isEmpty() || b.lang().equals("text") || b.lang().equals("console")) {
                    continue;
                }
                if ("not-run".equals(b.marker())) {
                    System.out.println("skip " + b.where() + " (" + b.lang() + "): " + b.arg());
                    skipped++;
                    continue;
                }
                String error;
                try {
                    error = switch (b.lang()) {
                        case "bash", "sh" -> runBash(b);
                        case "java" -> runJava(b);
                        case "yaml", "python", "json", "xml" -> checkExcerpt(b);
                        default -> "unknown block language '" + b.lang() + "'";
                    };
                } catch (IOException e) {
                    error = e.toString();
                }
                checked++;
                if (error == null) {
                    System.out.println("ok   " + b.where() + " (" + b.lang() + ")");
                } else {
                    failed++;
                    System.out.println("FAIL " + b.where() + " (" + b.lang() + "): " + error);
                }
            }
        }
        System.out.printf("docs: %d blocks checked, %d failed, %d marked not-run%n", checked, failed, skipped);
        System.exit(failed == 0 ? 0 : 1);
    }

    static List<Block> blocks(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Block> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (!l.startsWith("```")) {
                continue;
            }
            String lang = l.substring(3).trim();
            String marker = null;
            String arg = null;
            for (int j = i - 1; j >= 0 && j >= i - 2; j--) {
                Matcher m = MARK.matcher(lines.get(j));
                if (m.find()) {
                    marker = m.group(1);
                    arg = m.group(2);
                    break;
                }
                if (!lines.get(j).isBlank()) {
                    break;
                }
            }
            int start = i + 1;
            int end = start;
            while (end < lines.size() && !lines.get(end).startsWith("```")) {
                end++;
            }
            out.add(new Block(file, start, lang, marker, arg, String.join("\n", lines.subList(start, end)) + "\n"));
            i = end;
        }
        return out;
    }

    static String runBash(Block b) throws IOException, InterruptedException {
        return run(b, List.of("bash", "-e", "-c", b.text()), Path.of(""));
    }

    static String runJava(Block b) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("jkompute-docs");
        String text = b.text();
        Matcher cls = Pattern.compile("(?m)^(?:public\\s+)?(?:final\\s+)?(?:class|record)\\s+(\\w+)").matcher(text);
        String main;
        Path source;
        if (cls.find()) {
            main = text.contains("static void main") ? cls.group(1) : null;
            source = dir.resolve(cls.group(1) + ".java");
            Files.writeString(source, text);
        } else {
            // a snippet: the imports it leaves out, inside a main
            StringBuilder imports = new StringBuilder(IMPORTS);
            StringBuilder body = new StringBuilder();
            for (String l : text.split("\n")) {
                (l.startsWith("import ") ? imports : body).append(l).append('\n');
            }
            main = "Snippet";
            source = dir.resolve("Snippet.java");
            Files.writeString(source, imports + "public class Snippet { public static void main(String[] args) "
                    + "throws Exception {\n" + body + "}}\n");
        }
        String cp = System.getProperty("java.class.path");
        Path javac = Path.of(System.getProperty("java.home"), "bin", "javac");
        String err = run(b, List.of(javac.toString(), "-proc:none", "-cp", cp, "-d", dir.resolve("classes").toString(),
                source.toString()), Path.of(""));
        if (err != null || main == null || "compile-only".equals(b.marker())) {
            return err;
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // the flags this JVM got from the launcher: native access, Aeron's
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--") || a.startsWith("-D")).toList());
        cmd.addAll(List.of("-cp", dir.resolve("classes") + ":" + cp, main));
        return run(b, cmd, Path.of(""));
    }

    static String checkExcerpt(Block b) throws IOException {
        if (!"excerpt".equals(b.marker())) {
            return "a " + b.lang() + " block needs <!-- excerpt: FILE --> (or <!-- not-run: why -->) on the line before it";
        }
        Path shipped = Path.of(b.arg());
        if (!Files.isRegularFile(shipped)) {
            return "excerpt of " + shipped + ", which does not exist";
        }
        List<String> have = Files.readAllLines(shipped).stream().map(CheckDocs::code).toList();
        int at = 0;
        for (String l : b.text().split("\n")) {
            String want = code(l);
            if (want.isEmpty()) {
                continue;
            }
            int found = -1;
            for (int i = at; i < have.size(); i++) {
                if (have.get(i).equals(want)) {
                    found = i;
                    break;
                }
            }
            if (found < 0) {
                return "not in " + shipped + " (after line " + at + "): " + l.strip();
            }
            at = found + 1;
        }
        return null;
    }

    /** A line without its indentation and trailing comment, so that an excerpt may add remarks (a line that is only
     *  a {@code #} comment is a remark too). */
    static String code(String line) {
        String s = line.strip();
        if (s.startsWith("#")) {
            return "";
        }
        int hash = s.indexOf("  #");
        return (hash >= 0 ? s.substring(0, hash) : s).strip();
    }

    static String run(Block b, List<String> cmd, Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toAbsolutePath().toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "still running after " + TIMEOUT_S + " s";
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            String tail = text.lines().skip(Math.max(0, text.lines().count() - 15)).reduce("", (x, y) -> x + "\n    " + y);
            return "exit " + p.exitValue() + tail;
        }
        return null;
    }
}
