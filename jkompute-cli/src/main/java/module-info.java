/** The {@code jkompute} command line: devices, examples, apps, benchmarks; it exports no API. */
module io.jkompute.cli {
    requires io.jkompute.core;
    requires io.jkompute.cuda;
    requires io.jkompute.graph;
    requires io.jkompute.net;
    requires io.jkompute.examples;
    requires io.jkompute.bench;
    requires info.picocli;
    requires org.slf4j;
    opens io.jkompute.cli to info.picocli;
}
