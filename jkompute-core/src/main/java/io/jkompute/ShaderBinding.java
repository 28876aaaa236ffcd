package io.jkompute;

/**
 * One resource a shader declares in descriptor set 0, as read from its SPIR-V ({@link Algorithm#bindings()}).
 *
 * @param index the {@code binding} decoration: the position of its tensor or image in the algorithm's list
 * @param kind  what the shader declares there
 * @param name  the block's or variable's name in the shader (empty when the SPIR-V was stripped of names)
 */
public record ShaderBinding(int index, Kind kind, String name) {
    /** What a shader declares at a binding; jkompute binds tensors to storage buffers and images to storage images. */
    public enum Kind {
        /** A {@code buffer} block: where a tensor binds. */
        STORAGE_BUFFER("storage buffer"),
        /** An {@code image2D} (or other storage image): where an image binds. */
        STORAGE_IMAGE("storage image"),
        /** A {@code uniform} block; jkompute binds no tensor there. */
        UNIFORM_BUFFER("uniform buffer"),
        /** A sampled image or sampler; jkompute binds no image there. */
        SAMPLED_IMAGE("sampled image"),
        /** Any other kind of resource. */
        OTHER("resource");

        private final String words;

        Kind(String words) {
            this.words = words;
        }

        @Override
        public String toString() {
            return words;
        }
    }

    @Override
    public String toString() {
        return "binding " + index + " (" + kind + (name.isEmpty() ? "" : " '" + name + "'") + ")";
    }
}
