package io.jkompute.net;

import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.BufferClaim;
import io.aeron.logbuffer.Header;
import io.jkompute.graph.Component;
import io.jkompute.graph.GraphExecutionException;
import io.jkompute.graph.Message;
import io.jkompute.graph.Parameter;
import io.jkompute.graph.ParameterTypes;
import io.jkompute.graph.QueuePolicy;
import io.jkompute.graph.Registrar;
import io.jkompute.graph.RunListener;
import io.jkompute.graph.RunResult;
import io.jkompute.graph.QueuedTransmitter;
import io.jkompute.graph.StopReason;
import io.jkompute.net.internal.Hmac;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GXF's {@code nvidia::gxf::UcxTransmitter}: publishing on it sends the message to a {@link UcxReceiver} in
 * another process. Parameters as GXF's: {@code capacity} (1), {@code policy} (2) of the local queue,
 * {@code receiver_address} ("0.0.0.0" = this host), {@code port} (13337), {@code local_address} (default: the address that routes to the receiver),
 * {@code local_port} (0: any; where the receiver's credits and heartbeats come back), {@code buffer} (optional
 * here), {@code maximum_connection_retries} (200, each {@code jkompute.net.retryMs} = 500 ms).
 *
 * <p>After each tick the published messages are encoded ({@link WireFormat}) and sent in order. When the remote
 * queue has policy 2 and is full, sending waits for room (the sender is held back; a
 * {@code DownstreamReceptiveSchedulingTerm} on this transmitter sees the remote room through
 * {@link #remoteRoom()}); with policy 0 or 1 the remote queue drops and counts. Closing waits until the receiver
 * has every message sent, so nothing is lost on a healthy link.
 */
public class UcxTransmitter extends QueuedTransmitter implements RunListener {
    /**
     * Creates the component with its parameters unset; the graph loader sets them from the app's YAML (or Java code
     * through the graph builder) before the graph runs.
     */
    public UcxTransmitter() {
    }

    private static final Logger LOG = LoggerFactory.getLogger(UcxTransmitter.class);
    /** A sender waiting for its receiver says so this often. */
    static final long WAIT_NOTE_NS = 5_000_000_000L;

    private NetSettings settings;
    private Parameter<String> receiverAddress;
    private Parameter<Long> port;
    private Parameter<String> localAddress;
    private Parameter<Long> localPort;
    private Parameter<UcxSerializationBuffer> buffer;
    private Parameter<Long> retries;
    private Parameter<Component> asyncTerm;

    private AeronTransport transport;
    private Publication data;
    private Subscription control;
    private Thread poller;
    private volatile boolean running;
    private String target;
    private long linkId;
    private int controlPort;

    private volatile boolean welcomed;
    private volatile int remoteCapacity;
    private volatile QueuePolicy remotePolicy = QueuePolicy.FAULT;
    private volatile long freed;
    private volatile long delivered;
    private volatile long remoteDropped;
    private volatile long lastHeardNs;
    private volatile boolean peerClosed;
    private volatile String peer;
    private volatile String failure;
    private volatile long sent;
    private long bytes;
    private long startNs;
    /** Keyed by the shared secret: the receiver's WELCOME, checked under the control lock. */
    private Hmac base;
    /**
     * The link thread's own instance for signing its HELLOs: a thread of the graph may check a WELCOME with
     * {@link #base} at the same moment (under the control lock, which the HELLO does not take), and a {@code Mac} used
     * by two threads at once computes garbage, so both frames would be refused and the link would never come up.
     */
    private Hmac helloMac;
    /** The link's keys, from our link id and the receiver's nonce (WELCOME). */
    private Hmac out;
    private Hmac in;
    /** Frames on the data stream are numbered, signed and offered under this lock, so their counters stay in order. */
    private final ReentrantLock sendLock = new ReentrantLock();
    private long outCounter;
    private long inCounter;
    private int pinnedSession;
    private volatile long rejected;
    private volatile RunResult result;
    private long notConnectedSince;
    private volatile Runnable unregisterGoodbye;

    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[Frames.HEADER]);
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    private final BufferClaim claim = new BufferClaim();
    /** Lays out and writes the messages this link sends (the sending thread's). */
    private final MessageEncoder encoder = new MessageEncoder();
    private final WireFormat.IpcExport exportRegion = this::exportRegion;
    private int chunkBytes;
    /** Messages up to this many bytes go in one frame written straight into the log ({@code tryClaim}). */
    private int claimBytes;
    /**
     * The sending thread's wait for the link or for room in the remote queue: a credit (or a failure) wakes it at
     * once instead of after its park (up to 200 µs, more on a VM), which with a small remote queue is paid per
     * message.
     */
    private LinkIdle roomIdle;
    /** Held by the thread taking in the return path's frames: the subscription and the counters it sets. */
    private final PollingLock controlLock = new PollingLock();
    private final io.aeron.logbuffer.FragmentHandler controlHandler = this::onControl;
    private final java.util.function.IntSupplier controlPoll = this::controlPollBody;
    private final java.util.function.Consumer<Throwable> controlFailed = this::controlFailed;
    /** This link's work for the graph's waiting scheduler threads. */
    private io.jkompute.graph.Poller graphPoller;
    /** When a thread of the graph last polled the return path (System.nanoTime). */
    private volatile long graphPolledNs;
    /** The credit poller's idle (only Aeron polling finds its work, so nothing wakes it). */
    private LinkIdle pollIdle;
    /** Aeron back-pressure: only polling finds room in the log, so plain back-off. */
    private final IdleStrategy offerIdle = new BackoffIdleStrategy(100, 10, 1_000, 200_000);
    /** Same-host links: the shared slots large messages go through (null: every message over UDP). */
    private SharedSlots slots;
    /** The sending thread's idle while every shared slot is held by the receiver; a RELEASED frame wakes it. */
    private LinkIdle slotIdle;
    /** The slots the current shared message may use (see {@link #slotLimit}). */
    private volatile int sharedLimit = SharedSlots.MAX;
    /** Messages of at least this many bytes go through the shared slots. */
    private long sharedFrom;
    /** Messages sent through the shared slots. */
    private volatile long sharedSent;
    /**
     * The identity of this graph's GPU when this side can send device tensors by reference (a receiver on this host,
     * memory that can be shared between processes, {@code jkompute.net.cudaIpc} not false), else null.
     */
    private byte[] ownDevice;
    /** Set when the receiver's WELCOME named the same GPU and offered to take device tensors by reference. */
    private volatile byte[] peerDevice;
    /**
     * Messages whose device tensors went by reference, held (retained) until the receiver's RELEASED says it copied
     * them: their buffers must not go back to a pool, and be written again, while the receiver may still read them.
     */
    private final java.util.concurrent.ConcurrentHashMap<Long, Message> heldByReference = new java.util.concurrent.ConcurrentHashMap<>();
    /** Device tensors in the message being encoded that went by reference (sending thread only). */
    private int referencesInMessage;
    /** Device tensors sent by reference. */
    private volatile long referencesSent;
    /** The BATCH frame small messages staged together are written into, then offered whole (sending thread). */
    private UnsafeBuffer batchFrame;
    /** Messages sent in BATCH frames, and those frames. */
    private volatile long batchedSent;
    private volatile long batchesSent;

    @Override
    protected void registerInterface(Registrar r) {
        settings = NetSettings.queue(r, 1);
        receiverAddress = r.parameter("receiver_address", ParameterTypes.STRING, "address of the UcxReceiver",
                "0.0.0.0");
        port = r.parameter("port", ParameterTypes.UINT64, "port of the UcxReceiver", 13337L);
        localAddress = r.parameter("local_address", ParameterTypes.STRING,
                "local address for the return path (default: the one that routes to the receiver)", "");
        localPort = r.parameter("local_port", ParameterTypes.UINT64, "local port for the return path (0: any)", 0L);
        buffer = r.optionalHandle("buffer", UcxSerializationBuffer.class, "serialization buffer (GXF)");
        retries = r.parameter("maximum_connection_retries", ParameterTypes.UINT64,
                "connection attempts (each jkompute.net.retryMs, 500 ms)", 200L);
        asyncTerm = r.optionalHandle("async_scheduling_term", Component.class, "GXF's async term (not needed)");
    }

    @Override
    protected void initialize() {
        createQueue(settings.capacity(this), settings.policy());
        int p = NetSettings.port(this, "port", port.get(), false);
        int lp = NetSettings.port(this, "local_port", localPort.get(), true);
        if (retries.get() < 1) {
            throw NetSettings.bad(this, "maximum_connection_retries", "must be at least 1");
        }
        String host = Frames.connectHost(receiverAddress.get());
        target = host + ":" + p;
        peer = "UcxReceiver at " + target;
        String local;
        try {
            local = localAddress.get().isBlank() ? addressToward(host) : localAddress.get();
            base = new Hmac(NetSecret.get().keyNoCopy());
            helloMac = new Hmac(NetSecret.get().keyNoCopy());
        } catch (RuntimeException | java.io.IOException e) {
            throw NetSettings.bad(this, "receiver_address", "cannot open the link to " + target + ": " + e.getMessage());
        }
        transport = AeronTransport.acquire();
        try {
            control = transport.aeron().addSubscription(Frames.udp(local, lp), Frames.CONTROL_STREAM);
            String resolved = null;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while ((resolved = control.tryResolveChannelEndpointPort()) == null && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            if (resolved == null) {
                throw new IllegalStateException("the return path on " + local + ":" + lp + " did not open");
            }
            controlPort = Integer.parseInt(resolved.substring(resolved.lastIndexOf('=') + 1)
                    .replaceAll(".*:", "").replaceAll("[^0-9].*", ""));
            data = transport.aeron().addPublication(Frames.udp(host, p), Frames.DATA_STREAM);
        } catch (RuntimeException | InterruptedException e) {
            close0();
            throw NetSettings.bad(this, "receiver_address", "cannot open the link to " + target + ": " + e);
        }
        chunkBytes = Math.min(data.maxMessageLength(), 64 * 1024) - Frames.HEADER;
        claimBytes = data.maxPayloadLength() - Frames.HEADER;
        batchFrame = new UnsafeBuffer(new byte[data.maxPayloadLength()]);
        long busyNs = UcxContext.busyPollNs(graph());
        // the sending thread polls the return path itself while it waits: it spins as a waiting scheduler thread
        // does, so a credit that comes within that time is taken without a park
        long spinNs = NetSettings.schedulerSpinNs(graph());
        roomIdle = new LinkIdle(100, 10, 1_000, 200_000, spinNs, this::mayProceed);
        pollIdle = new LinkIdle(100, 100, 1_000, 100_000, busyNs, () -> false);
        linkId = new SecureRandom().nextLong();
        slots = sharedSlots(host, linkId);
        slotIdle = new LinkIdle(100, 10, 1_000, 200_000, spinNs,
                () -> failure != null || peerClosed || slots == null || slots.anyFree(sharedLimit));
        sharedFrom = Long.getLong("jkompute.net.sharedFromBytes", 256 * 1024);
        ownDevice = slots == null ? null : referenceDevice(graph());
        startNs = System.nanoTime();
        running = true;
        graphPoller = this::pollFromGraph;
        graph().addPoller(graphPoller, spinNs);
        poller = new Thread(this::poll, "jkompute-net-tx " + path());
        poller.setDaemon(true);
        poller.start();
    }

    /**
     * The shared slots for a receiver on this host (a loopback or local address), or null: receivers on other hosts,
     * a driver directory named by the user (no private folder), or {@code -Djkompute.net.sharedMemory=false}.
     */
    private SharedSlots sharedSlots(String host, long id) {
        java.nio.file.Path folder = transport.privateFolder();
        if (folder == null || !Boolean.parseBoolean(System.getProperty("jkompute.net.sharedMemory", "true"))) {
            return null;
        }
        try {
            java.net.InetAddress a = java.net.InetAddress.getByName(host);
            if (!a.isLoopbackAddress() && java.net.NetworkInterface.getByInetAddress(a) == null) {
                return null;
            }
        } catch (java.io.IOException e) {
            return null;
        }
        // file names for every possible slot; how many a message may use is decided per message (slotLimit)
        return new SharedSlots(folder, id, SharedSlots.MAX);
    }

    /**
     * The identity of the GPU that holds {@code graph}'s device memory when that memory can be passed to another
     * process by reference (CUDA IPC), or null: {@code -Djkompute.net.cudaIpc=false}, no such memory, or the
     * provider cannot run here.
     */
    static byte[] referenceDevice(io.jkompute.graph.Graph graph) {
        if (!Boolean.parseBoolean(System.getProperty("jkompute.net.cudaIpc", "true"))) {
            return null;
        }
        try {
            io.jkompute.graph.DeviceMemoryProvider p = graph.registry().deviceMemory(graph);
            byte[] id = p == null ? null : p.ipcDevice(graph).orElse(null);
            return id != null && id.length == Frames.DEVICE_ID ? id : null;
        } catch (RuntimeException | LinkageError e) {
            LOG.debug("no device references: {}", e.toString());
            return null;
        }
    }

    private void poll() {
        LinkIdle idle = pollIdle;
        UnsafeBuffer f = new UnsafeBuffer(new byte[Frames.HEADER + Frames.DEVICE_ID + 1024]);
        byte[] me = path().getBytes(StandardCharsets.UTF_8);
        int n = Math.min(me.length, 1024);
        long lastBeat = 0;
        long lastWaitNote = System.nanoTime();
        long maxWait = retries.get() * NetSettings.RETRY_NS;
        try {
            while (running) {
                // while a thread of the graph polls the return path (waiting for room, or with nothing to run), this
                // thread leaves it to that one rather than taking turns at the lock
                long now = System.nanoTime();
                int work = now - graphPolledNs < NetSettings.GRAPH_POLLS_NS ? 0 : pollControl(false);
                if (!welcomed) {
                    if (now - lastBeat > 100_000_000L && data.isConnected()) {
                        // the HELLO names this side's GPU when it can send device tensors by reference
                        byte[] dev = ownDevice;
                        int d = dev == null ? 0 : Frames.DEVICE_ID;
                        Frames.header(f, Frames.HELLO, dev == null ? 0 : Frames.FLAG_DEVICE_REFS, linkId, controlPort,
                                0, 0);
                        if (dev != null) {
                            f.putBytes(Frames.HEADER, dev);
                        }
                        f.putBytes(Frames.HEADER + d, me, 0, n);
                        Frames.sign(helloMac, f, 0, d + n);
                        if (data.offer(f, 0, Frames.HEADER + d + n) > 0) {
                            lastBeat = now;
                        }
                    }
                    if (failure == null && now - startNs > maxWait) {
                        lose("no UcxReceiver answered at " + target + " after " + retries.get()
                                + " connection retries of " + NetSettings.RETRY_NS / 1_000_000 + " ms");
                    } else if (failure == null && now - lastWaitNote > WAIT_NOTE_NS) {
                        lastWaitNote = now;
                        LOG.warn("{}: waiting for {} to answer ({} s so far, giving up after {} s){}", path(), peer,
                                (now - startNs) / 1_000_000_000L, maxWait / 1_000_000_000L,
                                data.isConnected() ? "" : "; nothing listens there yet");
                    }
                } else {
                    if (now - lastBeat > NetSettings.HEARTBEAT_NS && sendLock.tryLock()) {
                        // (while the sending thread holds the lock its frames are the heartbeat)
                        try {
                            Frames.header(f, Frames.HEARTBEAT, 0, sent, 0, 0, ++outCounter);
                            Frames.sign(out, f, 0, 0);
                            if (data.offer(f, 0, Frames.HEADER) > 0) {
                                lastBeat = now;
                            }
                        } finally {
                            sendLock.unlock();
                        }
                    }
                    if (!peerClosed && failure == null && now - lastHeardNs > NetSettings.TIMEOUT_NS) {
                        lose("no heartbeat for " + (now - lastHeardNs) / 1_000_000 + " ms (the receiving process "
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

    /**
     * Takes in the frames of the return path (credits, releases, the receiver's goodbye) if no other thread is doing
     * so: the link's thread, a scheduler thread of this graph with nothing to run ({@link io.jkompute.graph.Poller}),
     * or the sending thread while it waits for room ({@code wait}: it takes the lock even if another thread holds
     * it for a moment, so that a credit it waits for is never left to a thread that would have to wake it). Returns
     * the frames taken; a failure ends the link.
     */
    private int pollControl(boolean wait) {
        return running ? controlLock.poll(wait, controlPoll, controlFailed) : 0;
    }

    private int controlPollBody() {
        Subscription c = control;
        return c == null ? 0 : c.poll(controlHandler, 64);
    }

    private void controlFailed(Throwable e) {
        if (running) {
            lose(e.toString());
            LOG.error("{}: link failed", path(), e);
        }
    }

    /** The graph's waiting scheduler threads poll the return path (see {@link io.jkompute.graph.Poller}). */
    private int pollFromGraph() {
        graphPolledNs = System.nanoTime();
        return pollControl(false);
    }

    /** The sending thread, waiting for the link or for room, polls the return path itself. */
    private int pollForRoom() {
        graphPolledNs = System.nanoTime();
        return pollControl(true);
    }

    /**
     * Frames on the return path (under {@link #controlLock}). A frame from anyone but the linked receiver is dropped
     * and counted; nothing thrown here reaches Aeron's handler.
     */
    private void onControl(DirectBuffer b, int offset, int length, Header header) {
        if (failure != null) {
            return;
        }
        int type = Frames.typeOrNone(b, offset, length);
        if (type < 0) {
            reject(header, "not a jkompute link frame of protocol " + Frames.PROTOCOL);
            return;
        }
        if (type == Frames.WELCOME) {
            onWelcome(b, offset, length, header);
            return;
        }
        String refused = Frames.refusal(in, header.sessionId(), pinnedSession, inCounter, b, offset, length, "receiver");
        if (refused != null) {
            reject(header, refused);
            return;
        }
        inCounter = Frames.counter(b, offset);
        lastHeardNs = System.nanoTime();
        switch (type) {
            case Frames.CREDIT, Frames.BYE -> {
                long f = Frames.a(b, offset);
                long d = Frames.b(b, offset);
                long x = Frames.c(b, offset);
                // (sent is counted once a message is out: its receipt may be reported a moment before)
                if (d < delivered || d > sent + 1) {
                    lose("protocol violation: the receiver's counts went from " + freed + " freed, " + delivered
                            + " received, " + remoteDropped + " dropped to " + f + ", " + d + ", " + x + " with "
                            + sent + " sent");
                    return;
                }
                // received only grows; freed and dropped can step back by a message or two, because the receiving
                // queue counts a drop before a racing producer's compare-and-set and takes it back when that fails:
                // credits use the highest count seen, and the goodbye's counts are final
                boolean last = type == Frames.BYE;
                freed = last ? f : Math.max(freed, f);
                delivered = d;
                remoteDropped = last ? x : Math.max(remoteDropped, x);
                if (type == Frames.BYE) {
                    if ((Frames.flags(b, offset) & Frames.FLAG_FAILED) != 0) {
                        lose("the receiving side failed: " + b.getStringWithoutLengthUtf8(offset + Frames.HEADER,
                                Math.min(length - Frames.HEADER, 4096)));
                    }
                    peerClosed = true;
                }
            }
            case Frames.RELEASED -> {
                if ((Frames.flags(b, offset) & Frames.FLAG_DEVICE_REFS) != 0) {
                    Message held = heldByReference.remove(Frames.b(b, offset));
                    if (held == null) {
                        lose("protocol violation: the receiver released the device tensors of message "
                                + Frames.b(b, offset) + ", which holds none in flight");
                        return;
                    }
                    held.release(); // the buffers go back to their pools
                    graph().notify(entity()); // a term waiting for a free block (MemoryAvailable) looks again
                    return;
                }
                SharedSlots sl = slots;
                if (sl == null || !sl.release(Frames.a(b, offset), Frames.b(b, offset))) {
                    lose("protocol violation: the receiver released shared slot " + Frames.a(b, offset)
                            + " for message " + Frames.b(b, offset) + ", which that slot does not hold");
                    return;
                }
                slotIdle.wake();
                return;
            }
            default -> {
                lose("protocol violation: frame type " + type + " is not one a receiver sends");
                return;
            }
        }
        roomIdle.wake();
        slotIdle.wake();
        graph().notify(entity());
    }

    private void onWelcome(DirectBuffer b, int offset, int length, Header header) {
        boolean refs = (Frames.flags(b, offset) & Frames.FLAG_DEVICE_REFS) != 0;
        int fixed = 16 + (refs ? Frames.DEVICE_ID : 0);
        if (length < Frames.HEADER + fixed || !Frames.verify(base, b, offset, length) || Frames.counter(b, offset) != 0
                || b.getLong(offset + Frames.HEADER, Frames.LE) != linkId) {
            reject(header, "a WELCOME not signed with this host's secret for this link");
            return;
        }
        if (welcomed) {
            return;
        }
        long capacity = Frames.a(b, offset);
        long policy = Frames.b(b, offset);
        long initiallyFreed = Frames.c(b, offset);
        if (capacity < 1 || capacity > 1 << 20 || policy < 0 || policy >= QueuePolicy.values().length
                || initiallyFreed < 0) {
            lose("protocol violation: WELCOME with capacity " + capacity + ", policy " + policy + ", freed "
                    + initiallyFreed);
            return;
        }
        long nonce = b.getLong(offset + Frames.HEADER + 8, Frames.LE);
        byte[] secret = NetSecret.get().keyNoCopy();
        in = new Hmac(Hmac.derive(secret, "jkompute-link rx->tx", linkId, nonce));
        byte[] outKey = Hmac.derive(secret, "jkompute-link tx->rx", linkId, nonce);
        out = new Hmac(outKey);
        unregisterGoodbye = AeronTransport.onSignal(Frames.goodbye(data, outKey, "the sending process was stopped by "
                + "a signal (SIGINT/SIGTERM)", 0, 0));
        pinnedSession = header.sessionId();
        lastHeardNs = System.nanoTime();
        freed = initiallyFreed;
        remoteCapacity = (int) capacity;
        remotePolicy = QueuePolicy.values()[(int) policy];
        String who = b.getStringWithoutLengthUtf8(offset + Frames.HEADER + fixed,
                Math.min(length - Frames.HEADER - fixed, 1024));
        peer = "UcxReceiver '" + who + "' at " + target;
        if (refs && ownDevice != null) {
            // the receiver named its GPU inside the signed WELCOME: device tensors go by reference only to the same one
            byte[] theirs = new byte[Frames.DEVICE_ID];
            b.getBytes(offset + Frames.HEADER + 16, theirs);
            if (java.util.Arrays.equals(theirs, ownDevice)) {
                peerDevice = theirs;
            }
        }
        welcomed = true;
        LOG.debug("{}: linked to {} (capacity {}, policy {}{})", path(), peer, remoteCapacity, remotePolicy,
                peerDevice == null ? "" : ", device tensors by reference");
        roomIdle.wake();
        graph().notify(entity());
    }

    /** Drops a frame that is not the linked peer's, counts it, and says so (the first time and every 1000th). */
    private void reject(Header header, String why) {
        long n = ++rejected;
        if (n == 1 || n % 1000 == 0) {
            LOG.warn("{}: dropped {} (session {}; {} dropped so far)", path(), why, header.sessionId(), n);
        }
    }

    private void lose(String why) {
        if (failure != null) {
            return;
        }
        failure = "UcxTransmitter '" + path() + "' lost its link to " + peer + ": " + why + "; " + linkStatistics();
        LOG.error(failure);
        roomIdle.wake();
        graph().fail(new GraphExecutionException(entity().name(), name(), failure, null));
        graph().notify(entity());
    }

    /** Whether a waiting send can go on: linked and room in the remote queue, or something to report. */
    private boolean mayProceed() {
        if (failure != null || peerClosed) {
            return true;
        }
        return welcomed && roomFor(1);
    }

    private GraphExecutionException failed() {
        return new GraphExecutionException(entity().name(), name(), failure, null);
    }

    /** Places free in the remote queue (0 until the receiver answered); the sender's back-pressure. */
    @Override
    public int remoteRoom() {
        if (failure != null || peerClosed) {
            return Integer.MAX_VALUE; // let the codelet publish: sending then ends the run with the link's error
        }
        if (!welcomed) {
            return 0;
        }
        if (remotePolicy != QueuePolicy.FAULT) {
            return Integer.MAX_VALUE;
        }
        long inflight = sent + size() + backSize() - freed;
        return (int) Math.max(0, remoteCapacity - inflight);
    }

    @Override
    protected void sync() {
        syncQueue();
        Message m = takeStaged();
        while (m != null) {
            Message next;
            try {
                next = send(m);
            } finally {
                m.release();
            }
            m = next != null ? next : takeStaged();
        }
    }

    private GraphExecutionException closedByPeer() {
        return new GraphExecutionException(entity().name(), name(), "UcxTransmitter '" + path() + "': " + peer
                + " closed the link (its run ended) while messages were still to send; " + linkStatistics(), null);
    }

    /**
     * Sends {@code m}, with the small messages staged after it in the same frame when they fit (see
     * {@link #sendBatch}); returns one it took out of the queue but did not send (the next frame's first), or null.
     */
    private Message send(Message m) {
        LinkIdle idle = roomIdle;
        idle.reset();
        while (!welcomed) {
            if (failure != null) {
                throw failed();
            }
            idle.idle(pollForRoom());
        }
        if (peerClosed) {
            throw failure != null ? failed() : closedByPeer();
        }
        if (remotePolicy == QueuePolicy.FAULT) {
            idle.reset();
            long waitFrom = System.nanoTime();
            long lastNote = waitFrom;
            while (!roomFor(1)) {
                if (failure != null) {
                    throw failed();
                }
                if (peerClosed) {
                    throw closedByPeer();
                }
                idle.idle(pollForRoom());
                long now = System.nanoTime();
                if (now - lastNote > WAIT_NOTE_NS) {
                    lastNote = now;
                    LOG.warn("{}: waiting {} s for room in {} (capacity {}, {} sent, {} taken out)", path(),
                            (now - waitFrom) / 1_000_000_000L, peer, remoteCapacity, sent, freed);
                }
            }
        }
        long seq = sent + 1;
        referencesInMessage = 0;
        try {
            long total = encoder.plan(m, peerDevice == null ? null : exportRegion);
            if (referencesInMessage == 0 && size() > 0 && batchable(total) && roomFor(2)) {
                return sendBatch(seq, total);
            }
            if (referencesInMessage > 0) {
                // held before the frame goes out, so the receiver's RELEASED always finds it
                heldByReference.put(seq, m.retain());
                referencesSent += referencesInMessage;
            }
            try {
                sendPlanned(seq, total);
            } catch (RuntimeException | Error x) {
                Message held = heldByReference.remove(seq);
                if (held != null) {
                    held.release();
                }
                throw x;
            }
        } finally {
            encoder.release();
        }
        return null;
    }

    /** Whether a message of {@code total} bytes may share a BATCH frame: it fits one and goes over the link's UDP. */
    private boolean batchable(long total) {
        return Frames.batchEntry(total) <= claimBytes && (slots == null || total < sharedFrom);
    }

    /** Whether the remote queue has room for {@code n} more messages than were sent. */
    private boolean roomFor(int n) {
        return remotePolicy != QueuePolicy.FAULT || sent + n - freed <= remoteCapacity;
    }

    /**
     * Small messages staged together go in one BATCH frame: one MAC, one frame to send and for the receiver to check
     * and take in, instead of one each (Aeron packs frames into datagrams, but signs and polls nothing for us). The
     * first message is planned; those after it are taken while they are small, hold host data only, fit the frame
     * and the remote queue has room for them. Returns a message taken that did not fit (planned again
     * as the next frame's first), or null. A message that cannot be encoded ends the run as it does alone, after the
     * messages written before it went out.
     */
    private Message sendBatch(long seq, long firstTotal) {
        UnsafeBuffer f = batchFrame;
        int end = putBatched(f, Frames.HEADER, firstTotal);
        int count = 1;
        long messageBytes = firstTotal;
        Message leftover = null;
        while (count < Frames.BATCH_MAX && size() > 0 && roomFor(count + 1)) {
            Message n = takeStaged();
            if (n == null) {
                break;
            }
            if (!hostOnly(n)) {
                leftover = n; // its device tensors are read back or exported once, when it is sent
                break;
            }
            long total;
            referencesInMessage = 0;
            try {
                total = encoder.plan(n, peerDevice == null ? null : exportRegion);
                if (referencesInMessage > 0 || !batchable(total) || end + Frames.batchEntry(total) > f.capacity()) {
                    encoder.release();
                    leftover = n;
                    break;
                }
                end = putBatched(f, end, total);
            } catch (RuntimeException | Error e) {
                encoder.release();
                n.release();
                try {
                    offerBatch(f, seq, count, end, messageBytes);
                } catch (RuntimeException | Error x) {
                    e.addSuppressed(x);
                }
                throw e;
            }
            n.release();
            count++;
            messageBytes += total;
        }
        try {
            offerBatch(f, seq, count, end, messageBytes);
        } catch (RuntimeException | Error e) {
            if (leftover != null) {
                leftover.release();
            }
            throw e;
        }
        return leftover;
    }

    /** Whether {@code m} holds host data only: a device tensor is never planned twice (it may be read back). */
    private static boolean hostOnly(Message m) {
        boolean[] device = {false};
        m.forEach((name, v) -> device[0] |= v instanceof io.jkompute.graph.GraphTensor
                && !(v instanceof io.jkompute.graph.HostTensor));
        return !device[0];
    }

    /** Writes the planned message as a batch entry at {@code at}: u32 size, the message, zeros to 8 bytes. */
    private int putBatched(UnsafeBuffer f, int at, long total) {
        try {
            f.putInt(at, (int) total, Frames.LE);
            encoder.writeTo(f, at + 4);
        } finally {
            encoder.release();
        }
        int next = at + Frames.batchEntry(total);
        f.setMemory(at + 4 + (int) total, next - at - 4 - (int) total, (byte) 0);
        return next;
    }

    private void offerBatch(UnsafeBuffer f, long seq, int count, int end, long messageBytes) {
        sendLock.lock();
        try {
            Frames.header(f, 0, Frames.BATCH, 0, seq, count, 0, ++outCounter);
            Frames.sign(out, f, 0, end - Frames.HEADER);
            offerIdle.reset();
            long r;
            while ((r = data.offer(f, 0, end)) <= 0) {
                backPressured(r);
            }
            notConnectedSince = 0;
        } finally {
            sendLock.unlock();
        }
        bytes += messageBytes;
        batchedSent += count;
        batchesSent++;
        sent = seq + count - 1;
    }

    /**
     * Where the receiver reads {@code t} on the GPU, or null to send its bytes: memory of another GPU, or memory that
     * cannot be shared (the bytes then go as before).
     */
    private io.jkompute.graph.IpcRegion exportRegion(io.jkompute.graph.GraphTensor t) {
        byte[] dev = peerDevice;
        io.jkompute.graph.IpcRegion r;
        try {
            r = t.ipcRegion().orElse(null);
        } catch (RuntimeException e) {
            LOG.debug("{}: a device tensor goes by its bytes: {}", path(), e.toString());
            return null;
        }
        if (r == null || dev == null || !java.util.Arrays.equals(r.device(), dev)) {
            return null;
        }
        referencesInMessage++;
        return r;
    }

    /** Sends the message the encoder planned: in one claimed frame, through a shared slot, or in chunks. */
    private void sendPlanned(long seq, long total) {
        if (total <= claimBytes && (slots == null || total < sharedFrom)) {
            sendLock.lock();
            try {
                sendClaimed(seq, (int) total);
            } finally {
                sendLock.unlock();
            }
            bytes += total;
            sent = seq;
            return;
        }
        try (Arena header = Arena.ofConfined()) {
            sendEncoded(seq, encoder.encoded(header));
        }
    }

    private void sendEncoded(long seq, WireFormat.Encoded e) {
        if (slots != null && e.messageBytes() >= sharedFrom) {
            sendShared(seq, e);
            bytes += e.messageBytes();
            sent = seq;
            return;
        }
        int nparts = e.parts().size();
        for (int i = 0; i < nparts; i++) {
            WireFormat.Part part = e.parts().get(i);
            MemorySegment seg = part.bytes();
            long len = seg.byteSize();
            long pos = 0;
            do {
                int n = (int) Math.min(chunkBytes, len - pos);
                boolean last = i == nparts - 1 && pos + n == len;
                MemorySegment chunk = seg.asSlice(pos, n);
                payloadView.wrap(chunk.asByteBuffer());
                sendLock.lock();
                try {
                    Frames.header(frame, Frames.DATA, last ? Frames.FLAG_LAST : 0, seq, e.messageBytes(),
                            part.offset() + pos, ++outCounter);
                    Frames.sign(out, frame, payloadView, n);
                    offer(n);
                } finally {
                    sendLock.unlock();
                }
                pos += n;
            } while (pos < len);
        }
        bytes += e.messageBytes();
        sent = seq;
    }

    /**
     * A large message to a receiver on this host: written once into a free shared slot, announced by one signed
     * SHARED frame (c = the slot, and the number of slots in the upper 32 bits, so the receiver knows how many it
     * may keep). The slot stays taken until the receiver's RELEASED frame for this message: it decodes the message
     * in place and releases the slot when the last tensor referring to it is closed.
     */
    private void sendShared(long seq, WireFormat.Encoded e) {
        LinkIdle idle = slotIdle;
        idle.reset();
        long waitFrom = System.nanoTime();
        long lastNote = waitFrom;
        int limit = slotLimit(e.messageBytes());
        sharedLimit = limit;
        int slot;
        while ((slot = slots.take(seq, limit)) < 0) {
            if (failure != null) {
                throw failed();
            }
            if (peerClosed) {
                throw closedByPeer();
            }
            idle.idle(pollForRoom());
            long now = System.nanoTime();
            if (now - lastNote > WAIT_NOTE_NS) {
                lastNote = now;
                LOG.warn("{}: waiting {} s for {} to release one of {} shared slots", path(),
                        (now - waitFrom) / 1_000_000_000L, peer, limit);
            }
        }
        slots.write(slot, e);
        sharedSent++;
        byte[] name = slots.file(slot).toString().getBytes(StandardCharsets.UTF_8);
        payloadView.wrap(name);
        sendLock.lock();
        try {
            Frames.header(frame, Frames.SHARED, Frames.FLAG_LAST, seq, e.messageBytes(),
                    slot | (long) limit << 32, ++outCounter);
            Frames.sign(out, frame, payloadView, name.length);
            offer(name.length);
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * How many slots a message of {@code bytes} may use: the receiver holds up to its queue's capacity + 1 messages
     * while its graph works, so capacity + 2 slots stream without copies ({@code jkompute.net.sharedSlots} fixes
     * the number), within {@code jkompute.net.sharedBytes} of /dev/shm per link (1 GiB; at least 2 slots).
     */
    private int slotLimit(long bytes) {
        int want = Integer.getInteger("jkompute.net.sharedSlots", remoteCapacity + 2);
        long room = Long.getLong("jkompute.net.sharedBytes", 1L << 30) / Math.max(1, bytes);
        return (int) Math.max(1, Math.min(Math.min(want, slots.slots()), Math.max(2, room)));
    }

    private void offer(int n) {
        offerIdle.reset();
        while (true) {
            long r = n == 0 ? data.offer(frame, 0, Frames.HEADER)
                    : data.offer(frame, 0, Frames.HEADER, payloadView, 0, n);
            if (r > 0) {
                return;
            }
            backPressured(r);
        }
    }

    private void backPressured(long r) {
        if (failure != null) {
            throw failed();
        }
        if (peerClosed) {
            throw closedByPeer();
        }
        if (r == Publication.CLOSED || r == Publication.MAX_POSITION_EXCEEDED) {
            throw new GraphExecutionException(entity().name(), name(), "UcxTransmitter '" + path()
                    + "': the link to " + peer + " is closed (" + r + "); " + linkStatistics(), null);
        }
        if (r == Publication.NOT_CONNECTED) {
            long now = System.nanoTime();
            if (notConnectedSince == 0) {
                notConnectedSince = now;
            } else if (now - notConnectedSince > NetSettings.TIMEOUT_NS) {
                lose("nothing has received on the link for " + (now - notConnectedSince) / 1_000_000 + " ms");
                throw failed();
            }
        } else {
            notConnectedSince = 0;
        }
        offerIdle.idle();
    }

    /**
     * A message that fits one frame: header and parts are written straight into the publication's log (one copy,
     * one frame) instead of a header frame and a payload frame each copied by {@code offer}. The receiver sees the
     * usual DATA chunk covering the whole message.
     */
    private void sendClaimed(long seq, int total) {
        int len = Frames.HEADER + total;
        offerIdle.reset();
        long r;
        while ((r = data.tryClaim(len, claim)) <= 0) {
            backPressured(r);
        }
        notConnectedSince = 0;
        try {
            MutableDirectBuffer b = claim.buffer();
            int at = claim.offset();
            Frames.header(b, at, Frames.DATA, Frames.FLAG_LAST, seq, total, 0, ++outCounter);
            encoder.writeTo(b, at + Frames.HEADER);
            Frames.sign(out, b, at, total);
        } catch (RuntimeException | Error x) {
            claim.abort();
            throw x;
        }
        claim.commit();
    }

    /** The local address the OS would use to reach {@code host} (no packet is sent). */
    static String addressToward(String host) throws java.io.IOException {
        java.net.InetAddress a = java.net.InetAddress.getByName(host);
        if (a.isLoopbackAddress()) {
            return a instanceof java.net.Inet6Address ? "::1" : "127.0.0.1";
        }
        try (java.net.DatagramSocket s = new java.net.DatagramSocket()) {
            s.connect(new java.net.InetSocketAddress(a, 9));
            return s.getLocalAddress().getHostAddress();
        }
    }

    /** What crossed the link so far. */
    public LinkStatistics linkStatistics() {
        long d = remoteDropped;
        long s = sharedSent;
        long r = referencesSent;
        long b = batchesSent;
        return new LinkStatistics("'" + path() + "' → " + peer + (s == 0 ? "" : " [" + s + " through shared memory]")
                + (r == 0 ? "" : " [" + r + " device tensors by reference]")
                + (b == 0 ? "" : " [" + batchedSent + " in " + b + " batches]"),
                sent, delivered - d, d, bytes, rejected);
    }

    /** Frames dropped because they were not the linked receiver's (no valid MAC, another session, a replay). */
    public long rejectedFrames() {
        return rejected;
    }

    @Override
    public void runFinished(RunResult result) {
        this.result = result;
        awaitConfirmation(); // so the line below gives the receiver's exact count
        LOG.info("link {}", linkStatistics());
    }

    /**
     * Nothing lost on a healthy link: waits (up to the link timeout after the last word from the receiver) until the
     * receiver confirmed every message sent.
     */
    private void awaitConfirmation() {
        if (!running || !welcomed || failure != null) {
            return;
        }
        long hard = System.nanoTime() + 30_000_000_000L;
        while (delivered < sent && failure == null && !peerClosed && System.nanoTime() < hard) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (delivered < sent) {
            LOG.warn("{}: closing with {} of {} messages confirmed by {}", path(), delivered, sent, peer);
        }
    }

    /** Why this side's run did not end normally (error, interrupted), or null. */
    private String failedReason() {
        RunResult r = result;
        if (failure != null) {
            return failure;
        }
        if (r == null) {
            return "the sending graph closed without finishing its run";
        }
        if (r.reason() == StopReason.ERROR || r.reason() == StopReason.INTERRUPTED) {
            return "the sending graph ended " + r.reason() + (r.detail() == null ? "" : ": " + r.detail());
        }
        return null;
    }

    @Override
    protected void deinitialize() {
        if (unregisterGoodbye != null) {
            unregisterGoodbye.run();
            unregisterGoodbye = null;
        }
        awaitConfirmation();
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
        if (data != null && welcomed) {
            // goodbye; when this side's run failed (or was interrupted) the receiver fails too, with our reason
            String why = failedReason();
            byte[] text = why == null ? new byte[0] : why.getBytes(StandardCharsets.UTF_8);
            int n = Math.min(text.length, 1024);
            UnsafeBuffer f = new UnsafeBuffer(new byte[Frames.HEADER + n]);
            Frames.header(f, Frames.BYE, why == null ? 0 : Frames.FLAG_FAILED, sent, 0, 0, ++outCounter);
            f.putBytes(Frames.HEADER, text, 0, n);
            Frames.sign(out, f, 0, n);
            for (int i = 0; i < 100 && data.offer(f, 0, Frames.HEADER + n) < 0; i++) {
                Thread.yield();
            }
        }
        close0();
        clearQueue();
    }

    private void close0() {
        // every message sent was confirmed (or the link is gone): the receiver copied the tensors it will copy
        for (var it = heldByReference.values().iterator(); it.hasNext(); ) {
            Message held = it.next();
            it.remove();
            held.release();
        }
        if (slots != null) {
            slots.close();
            slots = null;
        }
        if (data != null) {
            data.close();
            data = null;
        }
        if (control != null) {
            controlLock.lock(); // a scheduler thread may be in a poll it began before running went false
            try {
                control.close();
                control = null;
            } finally {
                controlLock.unlock();
            }
        }
        if (transport != null) {
            transport.release();
            transport = null;
        }
    }
}
