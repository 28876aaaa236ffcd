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
import io.jkompute.graph.IpcImports;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.QueuedReceiver;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.RunListener;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.StopReason;
import io.jkompute.graph.std.VulkanDevice;
import io.jkompute.net.internal.Hmac;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GXF's {@code nvidia::gxf::UcxReceiver}: a queue in this graph filled by a {@link UcxTransmitter} in another
 * process. Parameters as GXF's: {@code capacity} (10), {@code policy} (2), {@code address} ("127.0.0.1": this
 * host only, unless the app asks for another; GXF's "0.0.0.0" is every interface), {@code port} (13337), {@code buffer} (a UcxSerializationBuffer, optional here); jkompute adds
 * {@code device} (a VulkanDevice for arriving device tensors; default: the graph's first one, if any) and
 * {@code allocator} (a device BlockMemoryPool for them: without one every arriving device tensor is a new Vulkan
 * buffer, with one the same blocks come round again, so stages that record per buffer, like a kernel codelet's
 * cached dispatch, record once; give it at least capacity + 2 blocks). When that pool is CUDA memory and the
 * transmitter is a process on this host whose device tensors are CUDA memory of the same GPU (both named in the
 * signed handshake), device tensors come by reference: one device-to-device copy from the transmitter's buffer
 * (CUDA IPC) into a block of this pool, after which a RELEASED frame lets the transmitter reuse its buffer;
 * {@code -Djkompute.net.cudaIpc=false} sends their bytes instead.
 *
 * <p>Policy 2 holds the remote sender back (it sends only while this queue has room); policies 0 and 1 drop
 * here as a full queue in one process would, counted in {@link #linkStatistics()}. A transmitter silent for
 * {@code jkompute.net.timeoutMs} (1500 ms) without saying goodbye fails the run, naming the link and the counts.
 *
 * <p>Every frame is authenticated ({@link Frames}, {@link NetSecret}): the link is pinned to the transmitter that
 * opened it, anything else is dropped and counted ({@link #rejectedFrames()}), and a protocol violation by the
 * linked transmitter (a gap, a size over {@code max_message_bytes}, a message that does not decode) ends the link
 * with the error and the counts so far.
 */
public class UcxReceiver extends QueuedReceiver implements RunListener {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public UcxReceiver() {
    }

    private static final Logger LOG = LoggerFactory.getLogger(UcxReceiver.class);

    private NetSettings settings;
    private Parameter<String> address;
    private Parameter<Long> port;
    private Parameter<UcxSerializationBuffer> buffer;
    private Parameter<VulkanDevice> device;
    private Parameter<Allocator> allocator;
    private Parameter<Component> asyncTerm;
    private Parameter<Long> maxMessage;
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    private AeronTransport transport;
    private Subscription data;
    private volatile Publication control;
    private Thread poller;
    private volatile boolean running;
    private WireFormat.DeviceFactory devices;
    private DeviceTensorCache cache;

    private volatile long received;
    private volatile long bytes;
    private volatile long lastHeardNs;
    private volatile boolean peerClosed;
    private volatile String peer = "?";
    private volatile String failure;
    private long linkId;
    private int sessionId;
    /** Frames from anyone but the linked transmitter (or not verifiable), dropped. */
    private volatile long rejected;
    /** Keyed by the shared secret: HELLOs and our WELCOME. */
    private Hmac base;
    /** The link's keys (transmitter → here, here → transmitter), from the HELLO's link id and our nonce. */
    private Hmac in;
    private Hmac out;
    private long inCounter;
    private long outCounter;
    /** The linked transmitter sent a frame under the link's key: the link is pinned to it. */
    private boolean confirmed;
    private long maxMessageBytes;
    private byte[] outKey;
    private volatile Runnable unregisterGoodbye;
    private volatile RunResult result;
    private long creditSent = -1;
    /** Messages received when the last credit went out: same-host links report each (the sender reuses slots). */
    private long creditReceived;
    /** The shared slots of a same-host transmitter, mapped (under dutyLock). */
    private SharedMaps shared;
    /** Memory for large arriving messages, reused (see {@link HostBufferPool}). */
    private HostBufferPool pool;
    /** A message was staged since the graph was last notified (under dutyLock). */
    private boolean arrived;
    /** Places freed that a CREDIT waits for while frames keep arriving. */
    private long creditBatch = 1;
    /** Messages that came through shared slots. */
    private volatile long sharedReceived;
    /** Of those, messages copied out of their slot (the graph held all but one slot). */
    private volatile long sharedCopied;
    /** Shared slots whose messages the graph still holds (decoded in place, not yet released). */
    private final java.util.concurrent.atomic.AtomicInteger slotsHeld = new java.util.concurrent.atomic.AtomicInteger();
    /** Slots to hand back to the transmitter ({slot, message}); any thread adds, the poller sends. */
    private final java.util.concurrent.ConcurrentLinkedQueue<long[]> releases = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private long lastCreditNs;
    /**
     * This graph's GPU when this link takes device tensors by reference (decided at the HELLO: the transmitter named
     * the same GPU and {@code allocator} is a pool of memory that can be shared), else null (under dutyLock).
     */
    private byte[] referenceDevice;
    /** The other process's buffers opened so far, kept open for the link (under dutyLock; closed at the end). */
    private IpcImports imports;
    /** The copies queued for the message being decoded, one per device tensor by reference (under dutyLock). */
    private List<IpcImports.Pending> copiesInMessage = new ArrayList<>();
    /**
     * Messages whose device tensors are still being copied, oldest first: each one's RELEASED goes out once its
     * copies are done (under dutyLock).
     */
    private final ArrayDeque<Copying> copying = new ArrayDeque<>();
    /** How many messages {@link #copying} holds, for the idle poller to read without the lock. */
    private volatile int copyingCount;
    /** Device tensors that came by reference. */
    private volatile long referencesReceived;

    /** The poller's idle; a place freed by the graph wakes it so the credit goes out at once. */
    private LinkIdle idle;
    /**
     * Held by whichever thread runs the duty cycle (this link's thread or a scheduler thread of the graph): the
     * subscription, the reassembly and the counters below are used under it only.
     */
    private final PollingLock dutyLock = new PollingLock();
    private final java.util.function.IntSupplier dutyCycle = this::dutyCycle;
    private final java.util.function.Consumer<Throwable> dutyFailed = this::dutyFailed;
    private final FragmentAssembler assembler = new FragmentAssembler(this::onFragment);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[Frames.HEADER]);
    /** A view of the pool buffer a batched message is copied into (link thread). */
    private final UnsafeBuffer batchedView = new UnsafeBuffer(0, 0);
    /** Messages that came in BATCH frames, and those frames. */
    private volatile long batchedReceived;
    private volatile long batchesReceived;
    /** This link's work for the graph's waiting scheduler threads. */
    private io.jkompute.graph.Poller graphPoller;
    /** When a thread of the graph last polled this link (System.nanoTime). */
    private volatile long graphPolledNs;

    // reassembly (under dutyLock)
    private MemorySegment assembling;
    private Arena assemblingArena;
    private long assemblingSeq;
    private long assembledTo;
    private long expectedSeq = 1;

    @Override
    protected void registerInterface(Registrar r) {
        settings = NetSettings.queue(r, 10);
        address = r.parameter("address", ParameterTypes.STRING,
                "address to listen on (default loopback; 0.0.0.0: every interface)", "127.0.0.1");
        port = r.parameter("port", ParameterTypes.UINT64, "UDP port to listen on", 13337L);
        buffer = r.optionalHandle("buffer", UcxSerializationBuffer.class, "serialization buffer (GXF)");
        device = r.optionalHandle("device", VulkanDevice.class, "device for arriving device tensors");
        allocator = r.optionalHandle("allocator", Allocator.class, "device pool for arriving device tensors");
        asyncTerm = r.optionalHandle("async_scheduling_term", Component.class, "GXF's async term (not needed)");
        maxMessage = r.parameter("max_message_bytes", ParameterTypes.UINT64,
                "largest message accepted (bytes); a larger one ends the link", 1L << 30);
    }

    @Override
    protected void initialize() {
        createQueue(settings.capacity(this), settings.policy());
        imports = null;
        int p = NetSettings.port(this, "port", port.get(), false);
        maxMessageBytes = maxMessage.get();
        if (maxMessageBytes < WireFormat.HEADER_FIXED || maxMessageBytes > 1L << 40) {
            throw NetSettings.bad(this, "max_message_bytes", "must be between " + WireFormat.HEADER_FIXED + " and 2^40, got "
                    + maxMessageBytes);
        }
        try {
            base = new Hmac(NetSecret.get().keyNoCopy());
        } catch (RuntimeException e) {
            throw NetSettings.bad(this, "port", "cannot authenticate links: " + e.getMessage());
        }
        String channel = Frames.udp(address.get().isBlank() ? "127.0.0.1" : address.get(), p);
        UcxContext context = UcxContext.find(graph());
        boolean cpuOnly = context != null && context.cpuDataOnly();
        VulkanDevice dev = device.isSet() ? device.get() : cpuOnly ? null : firstDevice();
        if (allocator.isSet()) {
            Allocator pool = allocator.get();
            devices = (type, shape, b) -> {
                // a Vulkan pool makes DeviceTensors; a pool of the graph's other device memory (CUDA) its own tensors
                io.jkompute.graph.GraphTensor t = io.jkompute.graph.GraphTensor.allocate(pool,
                        io.jkompute.graph.StorageType.DEVICE, type, shape);
                try {
                    if (t instanceof DeviceTensor d) {
                        d.upload(b);
                    } else {
                        t.copyFromHost(b);
                    }
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
        creditBatch = Math.max(1, capacity() / 16);
        pool = new HostBufferPool(capacity() + 2, Long.getLong("jkompute.net.poolBytes", 1L << 30));
        transport = AeronTransport.acquire();
        try {
            data = transport.aeron().addSubscription(channel, Frames.DATA_STREAM);
        } catch (RuntimeException e) {
            transport.release();
            transport = null;
            throw NetSettings.bad(this, "port", "cannot listen on " + channel + ": " + e.getMessage());
        }
        idle = new LinkIdle(100, 100, 1_000, 100_000, UcxContext.busyPollNs(graph()),
                () -> control != null && (freed() != creditSent || !releases.isEmpty() || copyingCount > 0));
        running = true;
        graphPoller = this::pollNow;
        graph().addPoller(graphPoller, NetSettings.schedulerSpinNs(graph()));
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

    /**
     * The link's own thread: the duty cycle whenever the graph's threads are not doing it (see {@link #pollNow}): while
     * a scheduler thread polls this link it idles, so the two do not take turns at the lock.
     */
    private void poll() {
        while (running) {
            if (System.nanoTime() - graphPolledNs < NetSettings.GRAPH_POLLS_NS) {
                java.util.concurrent.locks.LockSupport.parkNanos(this, NetSettings.GRAPH_POLLS_NS);
            } else {
                idle.idle(duty());
            }
        }
    }

    /**
     * One duty cycle from a thread of the graph, if no other thread is in one: a scheduler thread with nothing to run
     * ({@link io.jkompute.graph.Poller}) or one syncing this receiver. Returns the work done.
     */
    private int pollNow() {
        graphPolledNs = System.nanoTime();
        return duty();
    }

    /** The duty cycle under {@link #dutyLock}, if free; a failure ends the link and nothing is thrown to the caller. */
    private int duty() {
        return running ? dutyLock.poll(false, dutyCycle, dutyFailed) : 0;
    }

    private void dutyFailed(Throwable e) {
        if (running) {
            lose(e.toString());
            LOG.error("{}: link failed", path(), e);
        }
    }

    /**
     * Takes in the frames that arrived (staging their messages and waking the graph once), then sends what is due to
     * the transmitter: released slots, a credit, a heartbeat. Under {@link #dutyLock}.
     */
    private int dutyCycle() {
        int work = data.poll(assembler, 64);
        if (arrived) {
            // one wake-up of the receiving graph per poll, however many messages it brought
            arrived = false;
            graph().notify(entity());
        }
        long now = System.nanoTime();
        Publication c = control;
        if (c != null && failure == null) {
            releaseCopied();
            sendReleases(c, frame);
            long freed = freed();
            long got = received;
            if (creditDue(freed, got) || now - lastCreditNs > NetSettings.HEARTBEAT_NS) {
                sendCredit(c, freed, got, now);
            }
            if (!peerClosed && now - lastHeardNs > NetSettings.TIMEOUT_NS) {
                lose("no heartbeat for " + (now - lastHeardNs) / 1_000_000 + " ms (the sending process "
                        + "ended or the network is cut)");
            }
        }
        return work;
    }

    /**
     * Whether the places freed since the last credit should go to the transmitter now: a batch of them (a sixteenth
     * of the queue, each one for queues under 32), or any as soon as the transmitter may have used half of the room
     * it was given (it can be short of room only then), or every arrival on a same-host link (whose slots the
     * transmitter reuses once counted). A streaming link thus sends a credit per batch, not per message, and a
     * transmitter never waits for room that was freed.
     */
    private boolean creditDue(long freed, long got) {
        if (freed == creditSent) {
            return shared != null && got != creditReceived;
        }
        return freed - creditSent >= creditBatch || got - creditSent >= capacity() / 2
                || (shared != null && got != creditReceived);
    }

    /** A CREDIT frame with the counts (under {@link #dutyLock}). */
    private void sendCredit(Publication c, long freed, long got, long now) {
        Frames.header(frame, Frames.CREDIT, 0, freed, got, droppedCount(), ++outCounter);
        Frames.sign(out, frame, 0, 0);
        if (c.offer(frame, 0, Frames.HEADER) > 0) {
            creditSent = freed;
            creditReceived = got;
            lastCreditNs = now;
        }
    }

    /**
     * Every frame of the data stream. Nothing thrown here reaches Aeron (which would print it and drop the frame): a
     * frame from anyone but the linked transmitter is dropped and counted, and a protocol violation by the linked
     * transmitter ends the link with the error and the counts so far.
     */
    private void onFragment(DirectBuffer b, int offset, int length, Header header) {
        if (failure != null) {
            return;
        }
        int type = Frames.typeOrNone(b, offset, length);
        if (type < 0) {
            reject(header, "not a jkompute link frame of protocol " + Frames.PROTOCOL + " (" + length + " bytes)");
            return;
        }
        if (type == Frames.HELLO) {
            onHello(b, offset, length, header);
            return;
        }
        String refused = Frames.refusal(in, header.sessionId(), sessionId, inCounter, b, offset, length, "transmitter");
        if (refused != null) {
            reject(header, refused);
            return;
        }
        inCounter = Frames.counter(b, offset);
        confirmed = true;
        lastHeardNs = System.nanoTime();
        try {
            switch (type) {
                case Frames.DATA -> onData(b, offset, length);
                case Frames.BATCH -> onBatch(b, offset, length);
                case Frames.SHARED -> onShared(b, offset, length);
                case Frames.BYE -> {
                    if ((Frames.flags(b, offset) & Frames.FLAG_FAILED) != 0) {
                        lose("the sending side failed: " + text(b, offset + Frames.HEADER, length - Frames.HEADER));
                    }
                    peerClosed = true;
                }
                case Frames.HEARTBEAT -> {
                    // lastHeard is updated
                }
                default -> throw new WireFormat.FormatException("frame type " + type + " is not one a transmitter "
                        + "sends");
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            String what = e instanceof WireFormat.FormatException ? "protocol violation: " + e.getMessage()
                    : e.toString();
            lose(what);
            if (!(e instanceof WireFormat.FormatException)) {
                LOG.error("{}: link failed", path(), e);
            }
        }
    }

    /** Drops a frame that is not the linked peer's, counts it, and says so (the first time and then every 1000th). */
    private void reject(Header header, String why) {
        long n = ++rejected;
        if (n == 1 || n % 1000 == 0) {
            Image image = data.imageBySessionId(header.sessionId());
            LOG.warn("{}: dropped {} from {} ({} dropped so far)", path(), why,
                    image == null ? "session " + header.sessionId() : image.sourceIdentity(), n);
        }
    }

    private static String text(DirectBuffer b, int offset, int length) {
        return b.getStringWithoutLengthUtf8(offset, Math.max(0, Math.min(length, 4096)));
    }

    private void onHello(DirectBuffer b, int offset, int length, Header header) {
        if (!Frames.verify(base, b, offset, length) || Frames.counter(b, offset) != 0) {
            reject(header, "a HELLO not signed with this host's secret (" + NetSecret.get().source() + ")");
            return;
        }
        long id = Frames.a(b, offset);
        long controlPort = Frames.b(b, offset);
        if (in != null && id == linkId) {
            return; // the transmitter repeats its HELLO until our WELCOME arrives
        }
        if (confirmed) {
            // a link that carried frames stays with its transmitter: a second HELLO (a second transmitter, or an
            // old HELLO replayed) is refused
            reject(header, "a HELLO for another link while linked to " + peer);
            return;
        }
        if (controlPort < 1 || controlPort > 65535 || length - Frames.HEADER > 4096) {
            reject(header, "a malformed HELLO");
            return;
        }
        if (control != null) {
            LOG.warn("{}: a second transmitter connects before the first sent anything; linking to the new one",
                    path());
            control.close();
            control = null;
        }
        Image image = data.imageBySessionId(header.sessionId());
        String source = image == null ? "localhost:0" : image.sourceIdentity();
        String host = source.substring(0, source.lastIndexOf(':'));
        if (host.startsWith("[")) {
            host = host.substring(1, host.length() - 1);
        }
        boolean refs = (Frames.flags(b, offset) & Frames.FLAG_DEVICE_REFS) != 0;
        int d = refs ? Frames.DEVICE_ID : 0;
        if (length - Frames.HEADER < d) {
            reject(header, "a malformed HELLO");
            return;
        }
        String who = text(b, offset + Frames.HEADER + d, length - Frames.HEADER - d);
        byte[] mine = null;
        if (refs) {
            // the transmitter's GPU, from the signed HELLO: device tensors come by reference only from the same GPU
            byte[] theirs = new byte[Frames.DEVICE_ID];
            b.getBytes(offset + Frames.HEADER, theirs);
            mine = takesReferences();
            if (mine != null && !java.util.Arrays.equals(mine, theirs)) {
                mine = null;
            }
        }
        referenceDevice = mine;
        long nonce = RANDOM.nextLong();
        byte[] secret = NetSecret.get().keyNoCopy();
        in = new Hmac(Hmac.derive(secret, "jkompute-link tx->rx", id, nonce));
        outKey = Hmac.derive(secret, "jkompute-link rx->tx", id, nonce);
        out = new Hmac(outKey);
        inCounter = 0;
        outCounter = 0;
        linkId = id;
        sessionId = header.sessionId();
        peer = "UcxTransmitter '" + who + "' at " + host;
        lastHeardNs = System.nanoTime();
        Publication p = transport.aeron().addPublication(Frames.udp(host, controlPort), Frames.CONTROL_STREAM);
        // the WELCOME: capacity, policy, the link id it answers and this side's nonce; resent as CREDIT heartbeats
        // (and this side's GPU, when it takes the transmitter's device tensors by reference)
        UnsafeBuffer f = new UnsafeBuffer(new byte[Frames.HEADER + 16 + Frames.DEVICE_ID + 1024]);
        byte[] me = path().getBytes(StandardCharsets.UTF_8);
        int n = Math.min(me.length, 1024);
        int fixed = 16 + (mine == null ? 0 : Frames.DEVICE_ID);
        Frames.header(f, Frames.WELCOME, mine == null ? 0 : Frames.FLAG_DEVICE_REFS, capacity(),
                settings.policy().ordinal(), freed(), 0);
        f.putLong(Frames.HEADER, id, Frames.LE);
        f.putLong(Frames.HEADER + 8, nonce, Frames.LE);
        if (mine != null) {
            f.putBytes(Frames.HEADER + 16, mine);
        }
        f.putBytes(Frames.HEADER + fixed, me, 0, n);
        Frames.sign(base, f, 0, fixed + n);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (p.offer(f, 0, Frames.HEADER + fixed + n) < 0) {
            if (!running || System.nanoTime() > deadline) {
                p.close();
                lose("cannot answer " + peer + " on its control port " + controlPort);
                return;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        // the transmitter can say nothing on the link before it has our WELCOME: its silence counts from here
        lastHeardNs = System.nanoTime();
        lastCreditNs = lastHeardNs;
        creditSent = freed();
        control = p;
        if (unregisterGoodbye != null) {
            unregisterGoodbye.run();
        }
        unregisterGoodbye = AeronTransport.onSignal(Frames.goodbye(p, outKey, "the receiving process was stopped by "
                + "a signal (SIGINT/SIGTERM)", 0, 0));
        LOG.debug("{}: linked to {}", path(), peer);
    }

    /**
     * This graph's GPU identity when it can take device tensors by reference: {@code jkompute.net.cudaIpc} is not
     * false, the graph's device memory can be shared between processes, and {@code allocator} hands out such memory
     * (checked with one block taken and given back); else null.
     */
    private byte[] takesReferences() {
        if (!allocator.isSet() || allocator.get().storageType() != io.jkompute.graph.StorageType.DEVICE) {
            return null;
        }
        byte[] id = UcxTransmitter.referenceDevice(graph());
        if (id == null) {
            return null;
        }
        try (io.jkompute.graph.MemoryBlock probe = allocator.get().allocate(1, io.jkompute.graph.StorageType.DEVICE)) {
            return probe.deviceObject() instanceof io.jkompute.graph.DeviceBuffer ? id : null;
        } catch (RuntimeException e) {
            LOG.debug("{}: device tensors come by their bytes: {}", path(), e.toString());
            return null;
        }
    }

    /**
     * A device tensor sent by reference: a block of this side's pool, filled with one device-to-device copy from the
     * transmitter's buffer (opened once per buffer and kept open), queued on the device; the tensor's readers wait for
     * it on the device, and the transmitter's buffer stays its own until the copy is done. Sizes were checked
     * by the decoder; a handle that does not open or a range outside its buffer is the transmitter's protocol
     * violation (an IllegalArgumentException, which the decoder reports as a malformed message).
     */
    private io.jkompute.graph.GraphTensor openReference(io.jkompute.DataType type, long[] shape, byte[] handle,
                                                        long offset, long bytes) {
        if (referenceDevice == null) {
            throw new WireFormat.FormatException("a device tensor by reference on a link that did not agree to them");
        }
        if (bytes > maxMessageBytes) {
            throw new WireFormat.FormatException("a device tensor of " + bytes + " bytes; this receiver takes up to "
                    + maxMessageBytes + " (max_message_bytes)");
        }
        io.jkompute.graph.MemoryBlock block = allocator.get().allocate(bytes, io.jkompute.graph.StorageType.DEVICE);
        try {
            if (!(block.deviceObject() instanceof io.jkompute.graph.DeviceBuffer target)) {
                throw new IllegalStateException("allocator " + allocator.get().path() + " gave no shareable device memory");
            }
            if (imports == null) {
                imports = graph().registry().deviceMemory(graph()).openIpcImports(graph());
            }
            // queued, not waited for: the tensor carries the copy's stream, and the transmitter gets its buffer back
            // once the copy is done (see releaseCopied)
            copiesInMessage.add(imports.copyQueued(handle, offset, bytes, target));
            return target.tensor(type, shape, block);
        } catch (RuntimeException e) {
            block.close();
            throw e;
        }
    }

    private void onData(DirectBuffer b, int offset, int length) {
        long seq = Frames.a(b, offset);
        long total = Frames.b(b, offset);
        long at = Frames.c(b, offset);
        int chunk = length - Frames.HEADER;
        if (assembling == null || assemblingSeq != seq) {
            checkNext(seq);
            checkSize(seq, total);
            // from the receiver's pool, back there as soon as the last tensor referring to the message is closed
            // (not cleared: the gaps the sender skips, the padding between parts, are zeroed below)
            HostBufferPool.Buffer buf = pool.take(total);
            assemblingArena = buf;
            assembling = buf.slice(total);
            assemblingSeq = seq;
            assembledTo = 0;
        }
        if (total != assembling.byteSize()) {
            throw new WireFormat.FormatException("a chunk of message " + seq + " says " + total + " bytes, its first "
                    + "said " + assembling.byteSize());
        }
        if (at < assembledTo || at > total - chunk) {
            throw new WireFormat.FormatException("chunk [" + at + ", +" + chunk + ") of message " + seq
                    + " overlaps an earlier one or lies outside its " + total + " bytes");
        }
        if (at > assembledTo) {
            assembling.asSlice(assembledTo, at - assembledTo).fill((byte) 0);
        }
        if (chunk > 0) {
            b.getBytes(offset + Frames.HEADER, assembling.asSlice(at, chunk).asByteBuffer(), chunk);
        }
        assembledTo = at + chunk;
        if ((Frames.flags(b, offset) & Frames.FLAG_LAST) == 0) {
            return;
        }
        if (assembledTo < total) {
            assembling.asSlice(assembledTo, total - assembledTo).fill((byte) 0);
        }
        MemorySegment whole = assembling;
        Arena arena = assemblingArena;
        assembling = null;
        assemblingArena = null;
        deliver(seq, total, whole, arena);
    }

    /** Message {@code seq} may begin: no other is being assembled, and it is the next one (none lost or reordered). */
    private void checkNext(long seq) {
        if (assembling != null) {
            throw new WireFormat.FormatException("message " + seq + " began before message " + assemblingSeq
                    + " ended");
        }
        if (seq != expectedSeq) {
            throw new WireFormat.FormatException("message " + seq + " arrived, expected " + expectedSeq
                    + " (a message was lost or reordered)");
        }
    }

    /** A message's declared size is one this receiver takes: checked before anything is allocated for it. */
    private void checkSize(long seq, long total) {
        if (total < WireFormat.HEADER_FIXED || total > maxMessageBytes) {
            throw new WireFormat.FormatException("message " + seq + " declares " + total + " bytes; this "
                    + "receiver takes " + WireFormat.HEADER_FIXED + " to " + maxMessageBytes + " (max_message_bytes)");
        }
    }

    /**
     * Small messages the transmitter staged together, in one frame: each is checked against the frame and the limits
     * before its buffer is taken, copied into a buffer of the pool and delivered in order, as if it had come alone.
     */
    private void onBatch(DirectBuffer b, int offset, int length) {
        long seq = Frames.a(b, offset);
        long count = Frames.b(b, offset);
        checkNext(seq);
        int end = offset + length;
        if (count < 1 || count > Frames.BATCH_MAX || Frames.c(b, offset) != 0 || Frames.flags(b, offset) != 0
                || count * Frames.batchEntry(WireFormat.HEADER_FIXED) > length - Frames.HEADER) {
            throw new WireFormat.FormatException("malformed BATCH frame from message " + seq + " (" + count
                    + " messages in " + (length - Frames.HEADER) + " bytes)");
        }
        int at = offset + Frames.HEADER;
        for (long i = 0; i < count; i++) {
            long total = at + 4 <= end ? Integer.toUnsignedLong(b.getInt(at, Frames.LE)) : -1;
            checkSize(seq + i, total);
            if (total > end - at - 4) {
                throw new WireFormat.FormatException("message " + (seq + i) + " of a batch declares " + total
                        + " bytes; the frame has " + (end - at - 4) + " left");
            }
            HostBufferPool.Buffer buf = pool.take(total);
            MemorySegment whole = buf.slice(total);
            batchedView.wrap(whole.address(), (int) total);
            batchedView.putBytes(0, b, at + 4, (int) total);
            deliver(seq + i, total, whole, buf);
            at += Frames.batchEntry(total);
        }
        if (at != end) {
            throw new WireFormat.FormatException("a batch of " + count + " messages from message " + seq + " has "
                    + (end - at) + " bytes after its last");
        }
        batchedReceived += count;
        batchesReceived++;
    }

    /**
     * A message in a shared slot of a transmitter on this host, decoded where it lies: its host tensors refer to the
     * slot, which goes back to the transmitter (a RELEASED frame) when the last of them is closed. So the payload is
     * copied once on the whole path, by the transmitter into the slot. While the graph already holds all but one of
     * the transmitter's slots (it keeps messages), the message is copied out into this process's memory instead and
     * its slot released at once, so the transmitter always has a slot to go on with.
     */
    private void onShared(DirectBuffer b, int offset, int length) {
        long seq = Frames.a(b, offset);
        long total = Frames.b(b, offset);
        long c = Frames.c(b, offset);
        long slot = c & 0xFFFF_FFFFL;
        long slotCount = c >>> 32;
        int n = length - Frames.HEADER;
        checkNext(seq);
        checkSize(seq, total);
        if (slotCount < 1 || slotCount > SharedSlots.MAX || slot >= slotCount || n < 1 || n > 4096
                || (Frames.flags(b, offset) & Frames.FLAG_LAST) == 0) {
            throw new WireFormat.FormatException("malformed SHARED frame for message " + seq + " (slot " + slot
                    + " of " + slotCount + ", " + n + " bytes of name)");
        }
        if (shared == null) {
            shared = new SharedMaps();
        }
        SharedMaps.Mapping mapping = shared.slot(b.getStringWithoutLengthUtf8(offset + Frames.HEADER, n), linkId,
                (int) slot, total);
        MemorySegment src = mapping.map();
        if (slotsHeld.get() < slotCount - 1) {
            slotsHeld.incrementAndGet();
            mapping.retain();
            sharedReceived++;
            deliver(seq, total, src.asSlice(0, total), new SlotLease(mapping, slot, seq));
            return;
        }
        HostBufferPool.Buffer arena = pool.take(total);
        MemorySegment whole;
        try {
            whole = arena.slice(total);
            // in pieces, with the link's heartbeat between them: on a loaded machine a large copy can outlast the
            // transmitter's timeout, and this thread is the one that tells it this side is alive
            for (long at = 0; at < total; at += COPY_PIECE) {
                SharedCopy.copy(src, at, whole, at, Math.min(COPY_PIECE, total - at));
                heartbeatIfDue();
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            arena.close();
            throw e;
        }
        releases.add(new long[] {slot, seq});
        sharedReceived++;
        sharedCopied++;
        deliver(seq, total, whole, arena);
    }

    /**
     * A message decoded in a shared slot, as the "arena" its tensors close ({@link WireFormat#decode}): the last
     * close lets go of the mapping and queues the slot's RELEASED frame, which the poller sends.
     */
    private final class SlotLease implements Arena {
        private final SharedMaps.Mapping mapping;
        private final long slot;
        private final long seq;
        private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

        SlotLease(SharedMaps.Mapping mapping, long slot, long seq) {
            this.mapping = mapping;
            this.slot = slot;
            this.seq = seq;
        }

        @Override
        public MemorySegment allocate(long byteSize, long byteAlignment) {
            throw new UnsupportedOperationException("a shared slot allocates nothing");
        }

        @Override
        public MemorySegment.Scope scope() {
            return mapping.arena().scope();
        }

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            mapping.release();
            releases.add(new long[] {slot, seq});
            slotsHeld.decrementAndGet();
            LinkIdle i = idle;
            if (i != null) {
                i.wake();
            }
        }
    }

    /** Bytes copied out of a shared slot between two looks at the heartbeat. */
    private static final long COPY_PIECE = 16L << 20;

    /** Device tensors of one message, copied by reference: the copies still running. */
    private record Copying(long seq, List<IpcImports.Pending> copies) {
        boolean done() {
            for (IpcImports.Pending p : copies) {
                if (!p.done()) {
                    return false;
                }
            }
            return true;
        }

        void close() {
            copies.forEach(IpcImports.Pending::close);
        }
    }

    /**
     * The transmitter may reuse its buffers once their copies here are done: a RELEASED for each message whose
     * copies have finished, in order (under dutyLock).
     */
    private void releaseCopied() {
        Copying c;
        while ((c = copying.peek()) != null && c.done()) {
            copying.poll();
            c.close();
            releases.add(new long[] {0, c.seq(), Frames.FLAG_DEVICE_REFS});
        }
        copyingCount = copying.size();
    }

    /** RELEASED frames for the slots given back since the last poll (under dutyLock). */
    private void sendReleases(Publication c, UnsafeBuffer frame) {
        long[] r;
        while ((r = releases.peek()) != null) {
            Frames.header(frame, Frames.RELEASED, r.length > 2 ? (int) r[2] : 0, r[0], r[1], 0, outCounter + 1);
            Frames.sign(out, frame, 0, 0);
            if (c.offer(frame, 0, Frames.HEADER) < 0) {
                return; // back-pressured: the next poll tries again
            }
            outCounter++;
            releases.poll();
        }
    }

    /** A CREDIT with the current counts if none went out for a heartbeat period (under dutyLock). */
    private void heartbeatIfDue() {
        Publication c = control;
        long now = System.nanoTime();
        if (c != null && failure == null && now - lastCreditNs > NetSettings.HEARTBEAT_NS) {
            sendCredit(c, freed(), received, now);
        }
    }

    private void deliver(long seq, long total, MemorySegment whole, Arena arena) {
        expectedSeq = seq + 1;
        Message m;
        try {
            m = WireFormat.decode(whole, devices, arena, referenceDevice == null ? null : this::openReference);
        } catch (RuntimeException | Error e) {
            // the link ends: the transmitter may free its buffers, so no copy from them may still be running
            copiesInMessage.forEach(IpcImports.Pending::close);
            copiesInMessage.clear();
            throw e;
        }
        if (!copiesInMessage.isEmpty()) {
            referencesReceived += copiesInMessage.size();
            copying.add(new Copying(seq, copiesInMessage));
            copyingCount = copying.size();
            copiesInMessage = new ArrayList<>();
        }
        bytes += total;
        countArrival();
        if (!offerStaged(m)) {
            m.release();
            throw new WireFormat.FormatException("the transmitter sent beyond the room this queue gave it ("
                    + capacity() + " places)");
        }
        received++;
        arrived = true;
    }

    private long freed() {
        return poppedCount() + droppedCount();
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
        long dropped = droppedCount();
        long s = sharedReceived;
        long copied = sharedCopied;
        long r = referencesReceived;
        long b = batchesReceived;
        return new LinkStatistics(peer + " → '" + path() + "'" + (s == 0 ? "" : " [" + s + " through shared memory"
                + (copied == 0 ? "" : ", " + copied + " of them copied out") + "]")
                + (r == 0 ? "" : " [" + r + " device tensors by reference]")
                + (b == 0 ? "" : " [" + batchedReceived + " in " + b + " batches]"),
                received, received - dropped, dropped, bytes, rejected);
    }

    /** Frames dropped because they were not the linked transmitter's (no valid MAC, another session, a replay). */
    public long rejectedFrames() {
        return rejected;
    }

    @Override
    public void runFinished(RunResult result) {
        this.result = result;
        LOG.info("link {}", linkStatistics());
    }

    @Override
    protected void deinitialize() {
        if (unregisterGoodbye != null) {
            unregisterGoodbye.run();
            unregisterGoodbye = null;
        }
        running = false;
        if (graphPoller != null) {
            graph().removePoller(graphPoller);
            graphPoller = null;
        }
        if (poller != null) {
            try {
                poller.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // a scheduler thread may still be in a duty cycle it began before running went false
        dutyLock.lock();
        dutyLock.unlock();
        Publication c = control;
        if (c != null) {
            // goodbye; when this side's run failed (or was interrupted) the transmitter fails too, with our reason
            String why = failedReason();
            byte[] text = why == null ? new byte[0] : why.getBytes(StandardCharsets.UTF_8);
            int n = Math.min(text.length, 1024);
            UnsafeBuffer f = new UnsafeBuffer(new byte[Frames.HEADER + n]);
            Frames.header(f, Frames.BYE, why == null ? 0 : Frames.FLAG_FAILED, freed(), received, droppedCount(),
                    ++outCounter);
            f.putBytes(Frames.HEADER, text, 0, n);
            Frames.sign(out, f, 0, n);
            for (int i = 0; i < 100 && c.offer(f, 0, Frames.HEADER + n) < 0; i++) {
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
        if (shared != null) {
            shared.close();
            shared = null;
        }
        if (imports != null) {
            // the poller has stopped: copies still running finish, then the transmitter's buffers are unmapped
            // (their copies here stay valid)
            copying.forEach(Copying::close);
            copying.clear();
            copyingCount = 0;
            imports.close();
        }
        if (pool != null) {
            pool.close(); // buffers still held by messages are freed when those are released
        }
        clearQueue();
        if (cache != null) {
            cache.close(); // buffers still held by messages are closed when those are released
            cache = null;
        }
        if (transport != null) {
            transport.release();
            transport = null;
        }
    }

    /**
     * A place freed by the graph (a pop, a drop): the credit goes out now, from the graph's thread when no other
     * thread is in the duty cycle (else that thread sends it), rather than after the link thread's park.
     */
    @Override
    protected void placesFreed() {
        if (running && dutyLock.tryLock()) {
            try {
                Publication c = control;
                long freed = freed();
                long got = received;
                if (c != null && failure == null && creditDue(freed, got)) {
                    sendCredit(c, freed, got, System.nanoTime());
                }
            } catch (RuntimeException e) {
                lose(e.toString());
            } finally {
                dutyLock.unlock();
            }
            return;
        }
        LinkIdle i = idle;
        if (i != null) {
            i.wake();
        }
    }

    /**
     * A codelet syncing an empty receiver takes in what has arrived itself (see {@link #pollNow}), so one that waits
     * for a message gets it without a hand-off; while messages are queued, the link thread goes on taking in the
     * next ones beside the graph.
     */
    @Override
    protected void takeArrivals() {
        if (size() + backSize() == 0) {
            pollNow();
        }
    }

    /** Whether the transmitter closed the link cleanly (every message it sent has arrived before). */
    public boolean peerClosed() {
        return peerClosed;
    }

    /** Why this side's run did not end normally (error, interrupted), or null. */
    private String failedReason() {
        RunResult r = result;
        if (failure != null) {
            return failure;
        }
        if (r == null) {
            return "the receiving graph closed without finishing its run";
        }
        if (r.reason() == StopReason.ERROR || r.reason() == StopReason.INTERRUPTED) {
            return "the receiving graph ended " + r.reason() + (r.detail() == null ? "" : ": " + r.detail());
        }
        return null;
    }

    /** The other process's buffers this link opened, null when none came by reference (tests; closed with the link). */
    IpcImports imports() {
        return imports;
    }

    /** The Aeron session of the connected transmitter, 0 when none (diagnostics). */
    int sessionId() {
        return sessionId;
    }
}
