module io.jkompute.examples {
    requires io.jkompute.core;
    requires io.jkompute.cuda;
    requires org.slf4j;
    exports io.jkompute.examples;
}
