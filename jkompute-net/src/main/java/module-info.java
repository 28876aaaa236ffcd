/**
 * Graphs across processes, GPUs and hosts: GXF's {@code nvidia::gxf::UcxContext}, {@code UcxTransmitter},
 * {@code UcxReceiver} and {@code UcxEntitySerializer} carried over Aeron, and fragments of one app placed in several
 * processes under a driver.
 */
module io.jkompute.net {
    requires io.jkompute.graph;
    requires static io.jkompute.cuda; // NetBenchmark's CUDA IPC row only (its anchor, cuMemcpyDtoD)
    requires java.management; // the fragment driver starts worker JVMs with its own JVM options

    exports io.jkompute.net.fragment;

    requires io.aeron.client;
    requires io.aeron.driver;
    requires org.agrona;
    requires org.slf4j;
    requires org.snakeyaml.engine.v2;

    exports io.jkompute.net;
    exports io.jkompute.net.bench;

    provides io.jkompute.graph.GraphExtension with io.jkompute.net.NetExtension;
}
