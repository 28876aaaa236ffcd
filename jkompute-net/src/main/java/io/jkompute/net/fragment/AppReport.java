package io.jkompute.net.fragment;

import io.jkompute.graph.CodeletStatistics;
import io.jkompute.graph.EntityStatistics;
import io.jkompute.graph.JobStatistics;
import io.jkompute.graph.StopReason;
import io.jkompute.net.NetStatistics;
import io.jkompute.net.fragment.FragmentDriver.AppResult;
import io.jkompute.net.fragment.FragmentDriver.FragmentResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * What the fragments of one run reported at their ends (DONE with statistics and links, FAILED with an error), and
 * the app's result made from them: one line per fragment in the app's order and one statistics table for all.
 */
final class AppReport {
    private final List<String> fragments;
    private final Map<String, FragmentResult> results = new LinkedHashMap<>();
    private final List<NetStatistics.Link> links = new ArrayList<>();

    /** A report for the fragments named, in the app's order. */
    AppReport(List<String> fragments) {
        this.fragments = List.copyOf(fragments);
    }

    /** Whether every fragment has reported its end. */
    boolean complete() {
        return results.size() == fragments.size();
    }

    /** A fragment's end as its worker reported it; a second report of the same fragment is ignored. */
    void done(String worker, Control.Done d) {
        if (results.containsKey(d.fragment())) {
            return;
        }
        results.put(d.fragment(), new FragmentResult(d.fragment(), worker, d.reason(), d.detail(), d.durationNs(),
                parseStats(d.stats()), null));
        List<NetStatistics.Link> l = parseLinks(d.fragment(), d.stats());
        synchronized (links) {
            links.addAll(l);
        }
    }

    /** A fragment that failed (to load or while running). */
    void failed(String worker, String fragment, String error) {
        results.put(fragment, new FragmentResult(fragment, worker, StopReason.ERROR, null, 0, null, error));
    }

    /**
     * The app's result: every fragment's end (a fragment that never reported is "stopped: another fragment failed"
     * when the app failed, else "no result") and the statistics of every entity, an entity name that two fragments
     * share prefixed with its fragment's.
     *
     * @param workerOf the worker that ran a fragment, or null
     */
    AppResult result(Function<String, String> workerOf, String error, int exitCode, long durationNs) {
        List<FragmentResult> list = new ArrayList<>();
        List<EntityStatistics> entities = new ArrayList<>();
        long longest = 0;
        Set<String> names = new HashSet<>();
        for (String f : fragments) {
            FragmentResult r = results.get(f);
            if (r == null) {
                String w = workerOf.apply(f);
                r = new FragmentResult(f, w == null ? "(no worker)" : w, null, null, 0, null,
                        error != null ? "stopped: another fragment failed" : "no result");
            }
            list.add(r);
            if (r.statistics() != null) {
                longest = Math.max(longest, r.durationNs());
                for (EntityStatistics e : r.statistics().entities()) {
                    entities.add(names.add(e.entity()) ? e : rename(e, f + ":" + e.entity()));
                }
            }
        }
        return new AppResult(error == null ? 0 : exitCode, error, list, new JobStatistics(longest, entities),
                durationNs);
    }

    /** Every fragment's links as reported so far, in the app's fragment order (not the order the reports came in). */
    List<NetStatistics.Link> links() {
        List<NetStatistics.Link> out;
        synchronized (links) {
            out = new ArrayList<>(links);
        }
        out.sort(Comparator.comparingInt(l -> fragments.indexOf(l.fragment())));
        return List.copyOf(out);
    }

    @SuppressWarnings("unchecked")
    private static List<NetStatistics.Link> parseLinks(String fragment, String json) {
        if (json == null || json.isBlank()) {
            return List.of();
        }
        return NetStatistics.parseLinks(fragment,
                (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(json));
    }

    /** A worker's statistics JSON ({@link NetStatistics#json}) as the graph's statistics; null for none. */
    @SuppressWarnings("unchecked")
    static JobStatistics parseStats(String json) {
        if (json == null || json.isBlank()) {
            return null;
        }
        Map<String, Object> m = (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(json);
        List<EntityStatistics> list = new ArrayList<>();
        for (Object eo : (List<Object>) m.get("entities")) {
            Map<String, Object> e = (Map<String, Object>) eo;
            String name = (String) e.get("name");
            List<CodeletStatistics> codelets = new ArrayList<>();
            for (Object co : (List<Object>) e.get("codelets")) {
                Map<String, Object> c = (Map<String, Object>) co;
                codelets.add(new CodeletStatistics(name, (String) c.get("name"), (String) c.get("type"),
                        num(c, "ticks"), num(c, "total_tick_ns"), num(c, "max_tick_ns"), null));
            }
            list.add(new EntityStatistics(name, num(e, "ticks"), num(e, "total_tick_ns"), num(e, "max_tick_ns"),
                    num(e, "messages_in"), num(e, "messages_out"), List.copyOf(codelets), null));
        }
        return new JobStatistics(num(m, "duration_ns"), List.copyOf(list));
    }

    private static long num(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Number n ? n.longValue() : 0;
    }

    private static EntityStatistics rename(EntityStatistics e, String name) {
        return new EntityStatistics(name, e.ticks(), e.totalTickNs(), e.maxTickNs(), e.messagesIn(), e.messagesOut(),
                e.codelets(), e.recentTicks());
    }
}
