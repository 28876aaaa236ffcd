module io.jkompute.examples {
    requires io.jkompute.core;
    requires org.slf4j;
}
