/** Runnable examples of jkompute's API, as {@code ./jkompute example NAME} runs them. */
module io.jkompute.examples {
    requires io.jkompute.core;
    requires io.jkompute.cuda;
    requires io.jkompute.graph.cuda;
    requires org.slf4j;
    exports io.jkompute.examples;
}
