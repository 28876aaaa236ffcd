package io.jkompute.internal;

import static io.jkompute.internal.Vk.check;
import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.VK10.*;
import static org.lwjgl.vulkan.VK12.*;

import java.nio.IntBuffer;
import java.nio.LongBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.system.MemoryUtil;
import org.lwjgl.vulkan.VkDevice;
import org.lwjgl.vulkan.VkSemaphoreCreateInfo;
import org.lwjgl.vulkan.VkSemaphoreTypeCreateInfo;
import org.lwjgl.vulkan.VkSemaphoreWaitInfo;
import org.lwjgl.vulkan.VkSubmitInfo;
import org.lwjgl.vulkan.VkTimelineSemaphoreSubmitInfo;

/**
 * One sequence's timeline semaphore: its n-th submission signals value n, the host polls or waits for a value, and
 * other submissions wait for a value on the GPU. Holds the native structures a submission and a wait need, made once
 * so that neither allocates.
 *
 * <p>Not thread-safe: its owner calls it under its own lock (the native buffers are shared scratch), except
 * {@link #reachedValue()}, which any thread may read.
 */
public final class Timeline {
    private final VkDevice device;
    private long semaphore;
    private final LongBuffer signalValue;
    private final LongBuffer signalSemaphore;
    private final LongBuffer counter;
    private final LongBuffer waitValue;
    private final VkSemaphoreWaitInfo waitInfo;
    private final VkTimelineSemaphoreSubmitInfo submitInfo;
    /** A submission's wait semaphores, values and stages; grown when a submission waits on more. */
    private LongBuffer waitSemaphores;
    private LongBuffer waitValues;
    private IntBuffer waitStages;
    /** The highest value the semaphore is known to have reached: saves a driver call per check. */
    private volatile long reachedValue;

    /** Makes the semaphore at value 0. */
    public Timeline(VkDevice device) {
        this.device = device;
        try (MemoryStack stack = stackPush()) {
            LongBuffer lp = stack.mallocLong(1);
            VkSemaphoreTypeCreateInfo type = VkSemaphoreTypeCreateInfo.calloc(stack).sType$Default()
                    .semaphoreType(VK_SEMAPHORE_TYPE_TIMELINE).initialValue(0);
            check(vkCreateSemaphore(device, VkSemaphoreCreateInfo.calloc(stack).sType$Default().pNext(type), null, lp),
                    "vkCreateSemaphore");
            semaphore = lp.get(0);
        }
        signalValue = MemoryUtil.memCallocLong(1);
        signalSemaphore = MemoryUtil.memAllocLong(1).put(0, semaphore);
        counter = MemoryUtil.memCallocLong(1);
        waitValue = MemoryUtil.memCallocLong(1);
        waitSemaphores = MemoryUtil.memCallocLong(4);
        waitValues = MemoryUtil.memCallocLong(4);
        waitStages = MemoryUtil.memCallocInt(4);
        submitInfo = VkTimelineSemaphoreSubmitInfo.calloc().sType$Default().pSignalSemaphoreValues(signalValue);
        waitInfo = VkSemaphoreWaitInfo.calloc().sType$Default().semaphoreCount(1).pSemaphores(signalSemaphore)
                .pValues(waitValue);
    }

    /** The semaphore handle, for another submission's wait on it. */
    public long semaphore() {
        return semaphore;
    }

    /** The highest value known reached; may lag the semaphore, never lead it. */
    public long reachedValue() {
        return reachedValue;
    }

    /** Makes {@code submit} signal this timeline; done once, the submission is reused. */
    public void attach(VkSubmitInfo submit) {
        submit.pNext(submitInfo.address()).pSignalSemaphores(signalSemaphore);
    }

    /** Sets the value the next submission signals. */
    public void signalNext(long value) {
        signalValue.put(0, value);
    }

    /** Makes room for {@code n} waits of the next submission; then {@link #setWait} each and {@link #applyWaits}. */
    public void reserveWaits(int n) {
        if (waitSemaphores.capacity() < n) {
            int cap = Math.max(n, waitSemaphores.capacity() * 2);
            MemoryUtil.memFree(waitSemaphores);
            MemoryUtil.memFree(waitValues);
            MemoryUtil.memFree(waitStages);
            waitSemaphores = MemoryUtil.memCallocLong(cap);
            waitValues = MemoryUtil.memCallocLong(cap);
            waitStages = MemoryUtil.memCallocInt(cap);
        }
        waitSemaphores.clear();
        waitValues.clear();
        waitStages.clear();
    }

    /** The next submission's {@code i}-th wait: on the GPU, until {@code dep} reaches {@code value}. */
    public void setWait(int i, Timeline dep, long value) {
        waitSemaphores.put(i, dep.semaphore);
        waitValues.put(i, value);
        waitStages.put(i, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    }

    /** Makes {@code submit} wait for the first {@code n} waits set; {@link #clearWaits} after submitting. */
    public void applyWaits(VkSubmitInfo submit, int n) {
        submit.waitSemaphoreCount(n).pWaitSemaphores(waitSemaphores.limit(n)).pWaitDstStageMask(waitStages.limit(n));
        submitInfo.waitSemaphoreValueCount(n).pWaitSemaphoreValues(waitValues.limit(n));
    }

    /** Makes {@code submit} wait for nothing. */
    public void clearWaits(VkSubmitInfo submit) {
        submit.waitSemaphoreCount(0).pWaitSemaphores(null).pWaitDstStageMask(null);
        submitInfo.waitSemaphoreValueCount(0).pWaitSemaphoreValues(null);
    }

    /** Whether the semaphore reached {@code value}, asking the driver when the cached value is lower. */
    public boolean reached(long value) {
        if (value <= reachedValue) {
            return true;
        }
        return counterValue() >= value;
    }

    /** The semaphore's current value (one driver call). */
    private long counterValue() {
        check(vkGetSemaphoreCounterValue(device, semaphore, counter), "vkGetSemaphoreCounterValue");
        long c = counter.get(0);
        if (c > reachedValue) {
            reachedValue = c;
        }
        return c;
    }

    /**
     * Waits at most {@code timeoutNanos} for {@code value}: polls the semaphore for {@code spinNanos} (at least once;
     * not at all for {@link WaitPolicy#NO_SPIN}), then blocks in the driver for the rest. True when reached.
     */
    public boolean await(long value, long timeoutNanos, long spinNanos) {
        long start = System.nanoTime();
        if (spinNanos != WaitPolicy.NO_SPIN) {
            do {
                if (counterValue() >= value) {
                    return true;
                }
                Thread.onSpinWait();
            } while (System.nanoTime() - start < spinNanos);
        }
        long left = timeoutNanos == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, timeoutNanos - (System.nanoTime() - start));
        waitValue.put(0, value);
        int r = vkWaitSemaphores(device, waitInfo, left);
        if (r == VK_TIMEOUT) {
            return false;
        }
        check(r, "vkWaitSemaphores");
        if (value > reachedValue) {
            reachedValue = value;
        }
        return true;
    }

    /** Destroys the semaphore and frees the structures; idempotent. Every submission waiting on it must be done. */
    public void destroy() {
        if (semaphore == 0) {
            return;
        }
        vkDestroySemaphore(device, semaphore, null);
        semaphore = 0;
        submitInfo.free();
        waitInfo.free();
        MemoryUtil.memFree(signalValue);
        MemoryUtil.memFree(signalSemaphore);
        MemoryUtil.memFree(counter);
        MemoryUtil.memFree(waitValue);
        MemoryUtil.memFree(waitSemaphores);
        MemoryUtil.memFree(waitValues);
        MemoryUtil.memFree(waitStages);
    }
}
