module io.jkompute.graph {
    requires io.jkompute.core;
    requires org.slf4j;
    requires org.snakeyaml.engine.v2;
}
