module io.jkompute.bench {
    requires io.jkompute.core;
    requires io.jkompute.cuda;
    requires io.jkompute.graph;
    requires org.slf4j;
    requires java.management;
    exports io.jkompute.bench;
}
