package io.jkompute.graph.std;

import io.jkompute.graph.Clock;
import io.jkompute.graph.Component;
import io.jkompute.graph.JobStatistics;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.RecentTicks;
import io.jkompute.graph.RunListener;
import io.jkompute.graph.RunResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GXF's JobStatistics component ({@code nvidia::gxf::JobStatistics}): at the end of the run it logs the statistics
 * table (the figures {@code jkompute run --stats} writes) and, with {@code json_file_path}, writes them in GXF's JSON
 * layout ({@link JobStatistics#toGxfJson}). Parameters: {@code clock} (mandatory, as in GXF), {@code
 * codelet_statistics} (false), {@code json_file_path}, {@code event_history_count} (100, at most
 * {@value RecentTicks#CAPACITY}: ticks the medians and percentiles cover), {@code server} (GXF's IPC server: there is
 * none here, so it is ignored with a warning).
 */
public final class JobStatisticsComponent extends Component implements RunListener {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public JobStatisticsComponent() {
    }

    private static final Logger LOG = LoggerFactory.getLogger(JobStatisticsComponent.class);

    private Parameter<Clock> clock;
    private Parameter<Boolean> codeletStatistics;
    private Parameter<String> jsonFilePath;
    private Parameter<Long> eventHistoryCount;
    private Parameter<Component> server;
    private volatile String lastJson;

    @Override
    protected void registerInterface(Registrar r) {
        clock = r.handle("clock", Clock.class, "the clock of the statistics");
        codeletStatistics = r.parameter("codelet_statistics", ParameterTypes.BOOL,
                "also report each codelet", false);
        jsonFilePath = r.optional("json_file_path", ParameterTypes.STRING, "where the JSON report goes");
        eventHistoryCount = r.parameter("event_history_count", ParameterTypes.UINT64,
                "ticks kept for medians and percentiles", 100L);
        server = r.optionalHandle("server", Component.class, "GXF's IPC server for live statistics");
    }

    @Override
    protected void initialize() {
        long n = eventHistoryCount.get();
        if (n < 1 || n > RecentTicks.CAPACITY) {
            throw new IllegalArgumentException("parameter 'event_history_count' must be 1.." + RecentTicks.CAPACITY
                    + ", got " + n);
        }
        if (jsonFilePath.isSet()) {
            Path parent = Path.of(jsonFilePath.get()).toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent)) {
                throw new IllegalArgumentException("parameter 'json_file_path': directory " + parent
                        + " does not exist");
            }
        }
        if (server.isSet()) {
            LOG.warn("{}: parameter 'server' ignored: jkompute has no IPC statistics server; the report is written "
                    + "at the end of the run", path());
        }
    }

    /** The clock this component was given (statistics themselves are timed on the JVM's monotonic clock). */
    public Clock clock() {
        return clock.get();
    }

    @Override
    public void runFinished(RunResult result) throws IOException {
        JobStatistics s = result.statistics();
        // DEBUG: the run's owner prints the table once (jkompute run does); at INFO every run printed it twice
        LOG.debug("job statistics ({}):\n{}", path(), s.toTable());
        String json = s.toGxfJson((int) (long) eventHistoryCount.get(), codeletStatistics.get());
        lastJson = json;
        if (jsonFilePath.isSet()) {
            Files.writeString(Path.of(jsonFilePath.get()), json);
            LOG.info("job statistics written to {}", jsonFilePath.get());
        }
    }

    /** The JSON report of the finished run, or null before the run ended. */
    public String json() {
        return lastJson;
    }
}
