package io.jkompute;

/**
 * A Vulkan call failed. Carries the call's name and its {@code VkResult}.
 */
public final class VulkanException extends JkomputeException {
    /** The Vulkan function that failed. */
    private final String call;
    /** The raw {@code VkResult} code. */
    private final int result;

    /** {@code call} failed with {@code VkResult} {@code result}, whose name is {@code resultName}. */
    public VulkanException(String call, int result, String resultName) {
        super(call + " failed: " + resultName + " (" + result + ")");
        this.call = call;
        this.result = result;
    }

    /** As above, with what the caller knows about the failure appended to the message. */
    public VulkanException(String call, int result, String resultName, String detail) {
        super(call + " failed: " + resultName + " (" + result + ") " + detail);
        this.call = call;
        this.result = result;
    }

    /** The Vulkan function that failed, e.g. {@code vkQueueSubmit}. */
    public String call() {
        return call;
    }

    /** The raw {@code VkResult} code. */
    public int result() {
        return result;
    }
}
