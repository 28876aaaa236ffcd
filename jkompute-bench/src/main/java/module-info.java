/**
 * jkompute's benchmark suites and their reports (text, Markdown, HTML, JSON), as {@code ./jkompute bench} runs them.
 */
module io.jkompute.bench {
    requires io.jkompute.core;
    requires io.jkompute.cuda;
    requires io.jkompute.graph;
    requires org.lwjgl;
    requires org.lwjgl.vulkan;
    requires org.slf4j;
    requires java.management;
    requires org.snakeyaml.engine.v2;
    exports io.jkompute.bench;
}
