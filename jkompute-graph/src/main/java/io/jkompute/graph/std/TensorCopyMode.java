package io.jkompute.graph.std;

/** Where {@link TensorCopier} copies tensors (GXF's CopyMode; YAML takes 0/1/2 or GXF's kCopyTo... names). */
public enum TensorCopyMode {
    /** Into GPU memory: jkompute Vulkan tensors (0, kCopyToDevice). */
    COPY_TO_DEVICE("kCopyToDevice"),
    /** Into host memory (1, kCopyToHost). */
    COPY_TO_HOST("kCopyToHost"),
    /** Into ordinary heap memory (2, kCopyToSystem). */
    COPY_TO_SYSTEM("kCopyToSystem");

    private final String gxfName;

    TensorCopyMode(String gxfName) {
        this.gxfName = gxfName;
    }

    @Override
    public String toString() {
        return gxfName;
    }
}
