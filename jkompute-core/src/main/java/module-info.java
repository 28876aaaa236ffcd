module io.jkompute.core {
    requires org.lwjgl;
    requires org.lwjgl.vulkan;
    requires org.lwjgl.shaderc;
    requires org.lwjgl.spvc;
    requires org.lwjgl.vma;
    requires org.slf4j;
    exports io.jkompute;
}
