/**
 * Kompute's model in Java: a {@link io.jkompute.Manager} owns a Vulkan device and creates tensors, images,
 * algorithms and sequences; operations are recorded into a sequence once and evaluated many times.
 */
package io.jkompute;
