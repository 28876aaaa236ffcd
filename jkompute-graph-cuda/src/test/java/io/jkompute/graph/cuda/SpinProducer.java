package io.jkompute.graph.cuda;

import io.jkompute.DataType;
import io.jkompute.cuda.CudaModule;
import io.jkompute.cuda.Dim3;
import io.jkompute.cuda.Kernel;
import io.jkompute.graph.Allocator;
import io.jkompute.graph.CodeletAdapter;
import io.jkompute.graph.Message;
import io.jkompute.graph.Transmitter;

/**
 * Test producer: each tick queues a kernel that spins {@code spin_cycles} GPU clocks and then writes
 * y[i] = tick + i into a CUDA pool tensor, on a pool stream, and publishes the tensor with the stream's id without
 * waiting.
 */
public class SpinProducer extends CodeletAdapter {
    static final int N = 1024;
    private Transmitter tx;
    private Allocator pool;
    private CudaStreamPool streams;
    private CudaStreamId stream;
    private CudaModule module;
    private Kernel spin;
    private long cycles;

    @Override
    public void start() {
        tx = transmitter(param("transmitter"));
        pool = allocator(param("allocator"));
        streams = component(param("stream_pool"), CudaStreamPool.class);
        cycles = Long.parseLong(param("spin_cycles"));
        stream = streams.allocateStream();
        module = TestKernels.load();
        spin = module.kernel("spin_fill");
    }

    @Override
    public void tick() {
        CudaDeviceTensor y = CudaDeviceTensor.allocate(pool, DataType.FLOAT32, N);
        y.synchronize();
        spin.launch(stream.stream(), Dim3.blocksFor(N, 256), Dim3.of(256), 0, y.array(), (float) executionCount(),
                N, cycles);
        y.setStream(stream.stream());
        Message m = Message.create();
        m.add("tensor", y);
        m.add("stream", stream);
        tx.publish(m);
    }

    @Override
    public void stop() {
        stream.stream().synchronize();
        streams.releaseStream(stream);
        module.close();
    }
}
