package io.jkompute.graph.std;

import io.jkompute.graph.ComponentRegistry;
import io.jkompute.graph.Connection;
import io.jkompute.graph.GraphExtension;
import io.jkompute.graph.JavaCodelet;

/** The standard component types (GXF's StandardExtension plus JavaCodelet and VulkanDevice). */
public final class StandardExtension implements GraphExtension {
    /** Creates the extension; {@link java.util.ServiceLoader} calls this when the module is on the path. */
    public StandardExtension() {
    }

    @Override
    public String name() {
        return "StandardExtension";
    }

    @Override
    public void register(ComponentRegistry r) {
        r.register("DoubleBufferReceiver", DoubleBufferReceiver::new);
        r.register("DoubleBufferTransmitter", DoubleBufferTransmitter::new);
        r.register("Connection", Connection::new);
        r.register("CountSchedulingTerm", CountSchedulingTerm::new);
        r.register("PeriodicSchedulingTerm", PeriodicSchedulingTerm::new);
        r.register("TargetTimeSchedulingTerm", TargetTimeSchedulingTerm::new);
        r.register("MessageAvailableSchedulingTerm", MessageAvailableSchedulingTerm::new);
        r.register("MultiMessageAvailableSchedulingTerm", MultiMessageAvailableSchedulingTerm::new);
        r.register("DownstreamReceptiveSchedulingTerm", DownstreamReceptiveSchedulingTerm::new);
        r.register("BooleanSchedulingTerm", BooleanSchedulingTerm::new);
        r.register("AsynchronousSchedulingTerm", AsynchronousSchedulingTerm::new);
        r.register("ExpiringMessageAvailableSchedulingTerm", ExpiringMessageAvailableSchedulingTerm::new);
        r.register("MemoryAvailableSchedulingTerm", MemoryAvailableSchedulingTerm::new);
        r.register("OrSchedulingTermCombiner", OrSchedulingTermCombiner::new);
        r.register("GreedyScheduler", GreedyScheduler::new);
        r.register("MultiThreadScheduler", MultiThreadScheduler::new);
        r.register("EventBasedScheduler", EventBasedScheduler::new);
        r.register("EpochScheduler", EpochScheduler::new);
        r.register("JobStatistics", JobStatisticsComponent::new);
        r.register("Broadcast", Broadcast::new);
        r.register("Gather", Gather::new);
        r.register("Forward", Forward::new);
        r.register("Vault", Vault::new);
        r.register("Synchronization", Synchronization::new);
        r.register("TensorCopier", TensorCopier::new);
        r.register("CPUThread", CPUThread::new);
        r.register("ThreadPool", ThreadPool::new);
        r.register("RealtimeClock", RealtimeClock::new);
        r.register("ManualClock", ManualClock::new);
        r.register("UnboundedAllocator", UnboundedAllocator::new);
        r.register("BlockMemoryPool", BlockMemoryPool::new);
        r.register("JavaCodelet", JavaCodelet::new);
        // GXF's sample extension, which GXF's own Python codelet tests pair with Python codelets
        r.register("PingTx", SamplePingTx::new);
        r.register("PingRx", SamplePingRx::new);
        // GXF's test helper that its DLPack test apps use
        r.register("test::StepCount", TestStepCount::new);
        r.register("VulkanDevice", VulkanDevice::new);
    }
}
