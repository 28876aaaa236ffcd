/**
 * jkompute's core: Vulkan compute in Kompute's model (Manager, tensors and images, algorithms, sequences and
 * operations).
 */
module io.jkompute.core {
    requires org.lwjgl;
    requires org.lwjgl.vulkan;
    requires org.lwjgl.shaderc;
    requires org.lwjgl.spvc;
    requires org.lwjgl.vma;
    requires org.slf4j;
    exports io.jkompute;
}
