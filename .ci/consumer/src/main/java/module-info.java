/** A user's application on the module path: it names the jkompute modules it reads, nothing else. */
module org.example.consumer {
    requires io.jkompute.core;
    requires io.jkompute.graph;
}
