package io.jkompute.python.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * A Python installation as its own interpreter describes it: the interpreter is run once ({@code python3 -c ...}) and
 * asked for its shared library ({@code sysconfig}'s LIBDIR, INSTSONAME, LDLIBRARY), its prefixes and {@code sys.path},
 * so that virtual environments and conda environments are used exactly as that interpreter would use them.
 *
 * @param interpreter the interpreter that was asked
 * @param origin      where the interpreter came from ("JKOMPUTE_PYTHON", "jkompute.python" or "PATH")
 * @param version     e.g. "3.11.2"
 * @param libraries   candidate shared libraries, most specific first (absolute paths, then bare sonames)
 * @param basePrefix  sys.base_prefix (PYTHONHOME for the embedded interpreter)
 * @param baseExecPrefix sys.base_exec_prefix
 * @param prefix      sys.prefix (a virtual environment's folder where one is active)
 * @param execPrefix  sys.exec_prefix
 * @param executable  sys.executable
 * @param path        sys.path without the script folder entry
 */
public record PythonInstall(String interpreter, String origin, String version, List<String> libraries,
        String basePrefix, String baseExecPrefix, String prefix, String execPrefix, String executable,
        List<String> path) {

    /** The install command printed wherever Python or its library is missing. */
    public static final String INSTALL_HINT =
            "apt-get install python3 libpython3-dev python3-numpy (Debian/Ubuntu), or set JKOMPUTE_PYTHON to a python3";

    private static final String QUERY = String.join("\n",
            "import json, sys, sysconfig",
            "v = sysconfig.get_config_var",
            "print(json.dumps({'version': '%d.%d.%d' % sys.version_info[:3],",
            " 'libdir': v('LIBDIR') or '', 'instsoname': v('INSTSONAME') or '', 'ldlibrary': v('LDLIBRARY') or '',",
            " 'multiarch': v('MULTIARCH') or '', 'major_minor': '%d.%d' % sys.version_info[:2],",
            " 'base_prefix': sys.base_prefix, 'base_exec_prefix': sys.base_exec_prefix, 'prefix': sys.prefix,",
            " 'exec_prefix': sys.exec_prefix, 'executable': sys.executable, 'path': [p for p in sys.path if p]}))");

    /** The interpreter named by the system property jkompute.python, else JKOMPUTE_PYTHON, else python3 on PATH. */
    public static PythonInstall fromEnvironment() {
        String property = System.getProperty("jkompute.python");
        if (property != null && !property.isBlank()) {
            return query(property, "jkompute.python");
        }
        String env = System.getenv("JKOMPUTE_PYTHON");
        if (env != null && !env.isBlank()) {
            return query(env, "JKOMPUTE_PYTHON");
        }
        return query("python3", "PATH");
    }

    /**
     * Runs {@code interpreter} once and reads its answers.
     *
     * @throws PythonUnavailableException (one line) when it cannot be run or answers nonsense
     */
    public static PythonInstall query(String interpreter, String origin) {
        String named = "Python interpreter '" + interpreter + "' (from " + origin + ")";
        Process p;
        try {
            p = new ProcessBuilder(interpreter, "-c", QUERY).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new PythonUnavailableException(named + " cannot be run (" + reason(e) + "); install Python: "
                    + INSTALL_HINT);
        }
        String out;
        try {
            p.getOutputStream().close();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new PythonUnavailableException(named + " did not answer within 30 s");
            }
        } catch (IOException e) {
            throw new PythonUnavailableException(named + " cannot be run (" + reason(e) + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PythonUnavailableException(named + ": interrupted while asking it for its library");
        }
        String last = out.isEmpty() ? "" : out.substring(out.lastIndexOf('\n') + 1);
        if (p.exitValue() != 0 || !last.startsWith("{")) {
            throw new PythonUnavailableException(named + " is not a working Python 3 (exit " + p.exitValue() + ": "
                    + (last.isEmpty() ? "no output" : last) + "); " + INSTALL_HINT);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(last);
        @SuppressWarnings("unchecked")
        List<String> path = List.copyOf((List<String>) m.get("path"));
        return new PythonInstall(interpreter, origin, str(m, "version"), candidates(m), str(m, "base_prefix"),
                str(m, "base_exec_prefix"), str(m, "prefix"), str(m, "exec_prefix"), str(m, "executable"), path);
    }

    /** The versioned soname first (what the runtime package ships), then the development link, then bare names. */
    private static List<String> candidates(Map<String, Object> m) {
        String libdir = str(m, "libdir");
        String multiarch = str(m, "multiarch");
        Set<String> names = new LinkedHashSet<>();
        for (String key : List.of("instsoname", "ldlibrary")) {
            String n = str(m, key);
            if (!n.isEmpty() && n.contains(".so")) {
                names.add(n);
            }
        }
        names.add("libpython" + str(m, "major_minor") + ".so.1.0");
        names.add("libpython" + str(m, "major_minor") + ".so");
        List<String> out = new ArrayList<>();
        for (String n : names) {
            if (!libdir.isEmpty()) {
                addIfFile(out, Path.of(libdir, n));
                if (!multiarch.isEmpty()) {
                    addIfFile(out, Path.of(libdir, multiarch, n));
                }
            }
            for (String prefix : List.of(str(m, "base_exec_prefix"), str(m, "base_prefix"))) {
                if (!prefix.isEmpty()) {
                    addIfFile(out, Path.of(prefix, "lib", n));
                }
            }
        }
        // bare sonames last: the dynamic linker's own search (ld.so.cache, LD_LIBRARY_PATH)
        for (String n : names) {
            if (!out.contains(n)) {
                out.add(n);
            }
        }
        return List.copyOf(out);
    }

    private static void addIfFile(List<String> out, Path p) {
        if (Files.isRegularFile(p) && !out.contains(p.toString())) {
            out.add(p.toString());
        }
    }

    private static String str(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v == null ? "" : v.toString();
    }

    private static String reason(IOException e) {
        // "Cannot run program "x": Exec failed, error: 2 (No such file or directory) " -> the part in parentheses
        String msg = String.valueOf(e.getMessage()).strip();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\(([^()]+)\\)$").matcher(msg);
        if (m.find()) {
            return m.group(1);
        }
        int comma = msg.lastIndexOf(", ");
        return msg.contains("error=") && comma >= 0 ? msg.substring(comma + 2) : msg;
    }

    /** What the one-line message names: "Python 3.11.2 at /usr/bin/python3". */
    public String describe() {
        return "Python " + version + " at " + executable;
    }
}
