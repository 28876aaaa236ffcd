package io.jkompute.net;

import io.aeron.FragmentAssembler;
import io.aeron.Image;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.Header;
import io.jkompute.graph.Component;
import io.jkompute.graph.Entity;
import io.jkompute.graph.GraphExecutionException;
import io.jkompute.graph.Message;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.DeviceTensor;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.Receiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.RunListener;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.internal.StagingQueue;
import io.jkompute.graph.std.VulkanDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GXF's {@code nvidia::gxf::UcxReceiver}: a queue in this graph filled by a {@link UcxTransmitter} in another
 * process. Parameters as GXF's: {@code capacity} (10), {@code policy} (2), {@code address} ("0.0.0.0": every
 * interface), {@code port} (13337), {@code buffer} (a UcxSerializationBuffer, optional here); jkompute adds
 * {@code device} (a VulkanDevice for arriving device tensors; default: the graph's first one, if any) and
 * {@code allocator} (a device BlockMemoryPool for them: without one every arriving device tensor is a new Vulkan
 * buffer, with one the same blocks come round again, so stages that record per buffer, like a kernel codelet's
 * cached dispatch, record once; give it at least capacity + 2 blocks).
 *
 * <p>Policy 2 holds the remote sender back (it sends only while this queue has room); policies 0 and 1 drop
 * here as a full queue in one process would, counted in {@link #linkStatistics()}. A transmitter silent for
 * {@code jkompute.net.timeoutMs} (1500 ms) without saying goodbye fails the run, naming the link and the counts.
 */
public class UcxReceiver extends Receiver implements RunListener {
    private static final Logger LOG = LoggerFactory.getLogger(UcxReceiver.class);
    private static final long SMALL = 256 * 1024;

    private NetSettings settings;
    private Parameter<String> address;
    private Parameter<Long> port;
    private Parameter<UcxSerializationBuffer> buffer;
    private Parameter<VulkanDevice> device;
    private Parameter<Allocator> allocator;
    private Parameter<Component> asyncTerm;

    private StagingQueue queue;
    private AeronTransport transport;
    private Subscription data;
    private volatile Publication control;
    private Thread poller;
    private volatile boolean running;
    private WireFormat.DeviceFactory devices;
    private DeviceTensorCache cache;

    private volatile long popped;
    private volatile long received;
    private volatile long bytes;
    private volatile long lastHeardNs;
    private volatile boolean peerClosed;
    private volatile String peer = "?";
    private volatile String failure;
    private long linkId;
    private int sessionId;
    private long creditSent = -1;
    private long lastCreditNs;
    /** The poller's idle; a place freed by the graph wakes it so the credit goes out at once. */
    private LinkIdle idle;

    // reassembly (poller thread only)
    private MemorySegment assembling;
    private Arena assemblingArena;
    private long assemblingSeq;
    private long expectedSeq = 1;

    @Override
    protected void registerInterface(Registrar r) {
        settings = NetSettings.queue(r, 10);
        address = r.parameter("address", ParameterTypes.STRING, "address to listen on", "0.0.0.0");
        port = r.parameter("port", ParameterTypes.UINT64, "UDP port to listen on", 13337L);
        buffer = r.optionalHandle("buffer", UcxSerializationBuffer.class, "serialization buffer (GXF)");
        device = r.optionalHandle("device", VulkanDevice.class, "device for arriving device tensors");
        allocator = r.optionalHandle("allocator", Allocator.class, "device pool for arriving device tensors");
        asyncTerm = r.optionalHandle("async_scheduling_term", Component.class, "GXF's async term (not needed)");
    }

    @Override
    protected void initialize() {
        queue = settings.createQueue(this);
        int p = NetSettings.port(this, "port", port.get(), false);
        String channel = Frames.udp(address.get().isBlank() ? "0.0.0.0" : address.get(), p);
        UcxContext context = UcxContext.find(graph());
        boolean cpuOnly = context != null && context.cpuDataOnly();
        VulkanDevice dev = device.isSet() ? device.get() : cpuOnly ? null : firstDevice();
        if (allocator.isSet()) {
            Allocator pool = allocator.get();
            devices = (type, shape, b) -> {
                DeviceTensor t = DeviceTensor.allocate(pool, type, shape);
                try {
                    t.upload(b);
                    return t;
                } catch (RuntimeException e) {
                    t.close();
                    throw e;
                }
            };
        } else if (dev != null) {
            cache = new DeviceTensorCache(dev.manager(), 16);
            devices = cache::create;
        }
        transport = AeronTransport.acquire();
        try {
            data = transport.aeron().addSubscription(channel, Frames.DATA_STREAM);
        } catch (RuntimeException e) {
            transport.release();
            transport = null;
            throw NetSettings.bad(this, "port", "cannot listen on " + channel + ": " + e.getMessage());
        }
        idle = new LinkIdle(100, 100, 1_000, 100_000, () -> control != null && freed() != creditSent);
        running = true;
        poller = new Thread(this::poll, "jkompute-net-rx " + path());
        poller.setDaemon(true);
        poller.start();
    }

    private VulkanDevice firstDevice() {
        for (Entity e : graph().entities()) {
            for (Component c : e.components()) {
                if (c instanceof VulkanDevice v) {
                    return v;
                }
            }
        }
        return null;
    }

    private void poll() {
        FragmentAssembler assembler = new FragmentAssembler(this::onFragment);
        UnsafeBuffer frame = new UnsafeBuffer(new byte[Frames.HEADER]);
        try {
            while (running) {
                int work = data.poll(assembler, 64);
                long now = System.nanoTime();
                Publication c = control;
                if (c != null) {
                    long freed = freed();
                    if (freed != creditSent || now - lastCreditNs > NetSettings.HEARTBEAT_NS) {
                        Frames.header(frame, Frames.CREDIT, 0, freed, received, queue.dropped(), 0);
                        if (c.offer(frame, 0, Frames.HEADER) > 0) {
                            creditSent = freed;
                            lastCreditNs = now;
                        }
                    }
                    if (!peerClosed && failure == null && now - lastHeardNs > NetSettings.TIMEOUT_NS) {
                        lose("no heartbeat for " + (now - lastHeardNs) / 1_000_000 + " ms (the sending process "
                                + "ended or the network is cut)");
                    }
                }
                idle.idle(work);
            }
        } catch (RuntimeException | Error e) {
            if (running) {
                lose(e.toString());
                LOG.error("{}: link failed", path(), e);
            }
        }
    }

    private void onFragment(DirectBuffer b, int offset, int length, Header header) {
        int type = Frames.type(b, offset, length);
        lastHeardNs = System.nanoTime();
        switch (type) {
            case Frames.HELLO -> onHello(b, offset, length, header);
            case Frames.DATA -> onData(b, offset, length);
            case Frames.BYE -> peerClosed = true;
            default -> {
                // heartbeat: lastHeard is updated
            }
        }
    }

    private void onHello(DirectBuffer b, int offset, int length, Header header) {
        long id = Frames.a(b, offset);
        int controlPort = (int) Frames.b(b, offset);
        if (control != null && id == linkId) {
            return;
        }
        if (control != null) {
            LOG.warn("{}: a second transmitter connects; only one per receiver is supported, replacing the link",
                    path());
            control.close();
        }
        Image image = data.imageBySessionId(header.sessionId());
        String source = image == null ? "localhost:0" : image.sourceIdentity();
        String host = source.substring(0, source.lastIndexOf(':'));
        if (host.startsWith("[")) {
            host = host.substring(1, host.length() - 1);
        }
        String who = b.getStringWithoutLengthUtf8(offset + Frames.HEADER, length - Frames.HEADER);
        linkId = id;
        sessionId = header.sessionId();
        peer = "UcxTransmitter '" + who + "' at " + host;
        Publication p = transport.aeron().addPublication(Frames.udp(host, controlPort), Frames.CONTROL_STREAM);
        // the WELCOME: capacity and policy, resent as a CREDIT heartbeat afterwards
        UnsafeBuffer f = new UnsafeBuffer(new byte[Frames.HEADER + 1024]);
        byte[] me = path().getBytes(StandardCharsets.UTF_8);
        int n = Math.min(me.length, 1024);
        Frames.header(f, Frames.WELCOME, 0, queue.capacity(), settings.policy().ordinal(), freed(), 0);
        f.putBytes(Frames.HEADER, me, 0, n);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (p.offer(f, 0, Frames.HEADER + n) < 0) {
            if (!running || System.nanoTime() > deadline) {
                throw new IllegalStateException("cannot answer " + peer + " on control port " + controlPort);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        lastCreditNs = System.nanoTime();
        creditSent = freed();
        control = p;
        LOG.debug("{}: linked to {}", path(), peer);
    }

    private void onData(DirectBuffer b, int offset, int length) {
        long seq = Frames.a(b, offset);
        long total = Frames.b(b, offset);
        long at = Frames.c(b, offset);
        int chunk = length - Frames.HEADER;
        if (assembling == null || assemblingSeq != seq) {
            if (seq != expectedSeq) {
                throw new IllegalStateException("message " + seq + " arrived, expected " + expectedSeq
                        + " (a message was lost or reordered)");
            }
            if (assemblingArena != null) {
                assemblingArena.close();
            }
            // small messages: GC-managed memory (closing a shared arena costs a handshake with every thread);
            // large ones: freed as soon as the last tensor referring to them is closed
            assemblingArena = total > SMALL ? Arena.ofShared() : null;
            assembling = (assemblingArena != null ? assemblingArena : Arena.ofAuto()).allocate(Math.max(1, total), WireFormat.ALIGN).asSlice(0, total);
            assemblingSeq = seq;
        }
        if (at < 0 || at + chunk > total) {
            throw new IllegalStateException("chunk [" + at + ", +" + chunk + ") outside message of " + total + " bytes");
        }
        if (chunk > 0) {
            b.getBytes(offset + Frames.HEADER, assembling.asSlice(at, chunk).asByteBuffer(), chunk);
        }
        if ((Frames.flags(b, offset) & Frames.FLAG_LAST) == 0) {
            return;
        }
        MemorySegment whole = assembling;
        Arena arena = assemblingArena;
        assembling = null;
        assemblingArena = null;
        expectedSeq = seq + 1;
        Message m = WireFormat.decode(whole, devices, arena);
        bytes += total;
        countArrival();
        try {
            queue.push(m);
        } catch (StagingQueue.Overflow o) {
            m.release();
            throw new IllegalStateException("queue overflowed although the sender respects its room: " + o.getMessage());
        }
        received++;
        graph().notify(entity());
    }

    private long freed() {
        return popped + queue.dropped();
    }

    private void lose(String why) {
        if (failure != null) {
            return;
        }
        failure = "UcxReceiver '" + path() + "' lost its link to " + peer + ": " + why + "; " + linkStatistics();
        LOG.error(failure);
        graph().fail(new GraphExecutionException(entity().name(), name(), failure, null));
        graph().notify(entity());
    }

    /** What crossed the link so far. */
    public LinkStatistics linkStatistics() {
        long dropped = queue == null ? 0 : queue.dropped();
        return new LinkStatistics(peer + " → '" + path() + "'", received, received - dropped, dropped, bytes);
    }

    @Override
    public void runFinished(RunResult result) {
        LOG.info("link {}", linkStatistics());
    }

    @Override
    protected void deinitialize() {
        running = false;
        if (poller != null) {
            try {
                poller.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Publication c = control;
        if (c != null) {
            UnsafeBuffer f = new UnsafeBuffer(new byte[Frames.HEADER]);
            Frames.header(f, Frames.BYE, 0, freed(), received, queue.dropped(), 0);
            for (int i = 0; i < 100 && c.offer(f, 0, Frames.HEADER) < 0; i++) {
                Thread.yield();
            }
            c.close();
            control = null;
        }
        if (data != null) {
            data.close();
        }
        if (assemblingArena != null) {
            assemblingArena.close();
            assemblingArena = null;
        }
        if (queue != null) {
            queue.clear();
        }
        if (cache != null) {
            cache.close(); // buffers still held by messages are closed when those are released
            cache = null;
        }
        if (transport != null) {
            transport.release();
            transport = null;
        }
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public int backSize() {
        return queue.backSize();
    }

    @Override
    public int capacity() {
        return queue.capacity();
    }

    @Override
    public Message peek(int index) {
        return queue.peek(index);
    }

    @Override
    public Message peekBack(int index) {
        return queue.peekBack(index);
    }

    @Override
    public void sync() {
        long dropped = queue.dropped();
        queue.sync();
        if (queue.dropped() != dropped) {
            idle.wake(); // places freed by the policy: a credit to send
        }
    }

    @Override
    protected Message pop() {
        Message m = queue.pop();
        if (m != null) {
            popped++;
            // the sender may wait for this place (policy 2): the poller sends the credit now rather than after
            // its park (up to 100 µs, more on a VM)
            idle.wake();
        }
        return m;
    }

    @Override
    protected void push(Message message) {
        // a message from a transmitter of this graph (an in-process Connection to a UcxReceiver)
        queue.push(message);
    }

    /** Whether the transmitter closed the link cleanly (every message it sent has arrived before). */
    public boolean peerClosed() {
        return peerClosed;
    }

    /** Messages dropped by the pop/reject policy. */
    public long droppedCount() {
        return queue.dropped();
    }

    /** The Aeron session of the connected transmitter, 0 when none (diagnostics). */
    int sessionId() {
        return sessionId;
    }
}
