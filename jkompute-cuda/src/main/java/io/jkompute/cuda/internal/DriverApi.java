package io.jkompute.cuda.internal;

import java.lang.foreign.MemorySegment;

/**
 * The driver entry points jkompute-cuda uses, each returning the backend's raw result code (0 = success). The CUDA
 * driver implements it ({@link Driver}'s wrappers delegate to {@code Driver.API}); a HIP binding would implement it
 * with the functions of the same names ({@code hipInit}, {@code hipMalloc}, {@code hipModuleLaunchKernel}, ...), whose
 * arguments match these one to one (the 2D copy takes HIP's {@code hip_Memcpy2D}, laid out like
 * {@code CUDA_MEMCPY2D}). See the README's "Design for HIP".
 */
public interface DriverApi {
    int getErrorName(int code, MemorySegment out);

    int getErrorString(int code, MemorySegment out);

    int init();

    int driverGetVersion(MemorySegment out);

    int deviceGetCount(MemorySegment out);

    int deviceGet(MemorySegment out, int ordinal);

    int deviceGetName(MemorySegment out, int len, int dev);

    int deviceTotalMem(MemorySegment out, int dev);

    int deviceGetAttribute(MemorySegment out, int attr, int dev);

    int deviceGetUuid(MemorySegment out16, int dev);

    int primaryCtxRetain(MemorySegment out, int dev);

    int ctxSetCurrent(MemorySegment ctx);

    int ctxGetCurrent(MemorySegment out);

    int ctxSynchronize();

    int memGetInfo(MemorySegment free, MemorySegment total);

    int memAlloc(MemorySegment out, long bytes);

    int memFree(long dptr);

    /** The 64-byte inter-process handle of the allocation at {@code dptr}. */
    int ipcGetMemHandle(MemorySegment out64, long dptr);

    /** Maps another process's allocation (its 64-byte handle, passed by value) into the current context. */
    int ipcOpenMemHandle(MemorySegment out, MemorySegment handle64, int flags);

    /** Unmaps an address that {@link #ipcOpenMemHandle} returned. */
    int ipcCloseMemHandle(long dptr);

    int memHostAlloc(MemorySegment out, long bytes, int flags);

    int memFreeHost(MemorySegment p);

    /** Synchronous host→device copy; {@code src} may be a heap segment only if {@code bytes} is small (critical). */
    int memcpyHtoD(long dst, MemorySegment src, long bytes);

    /** Synchronous device→host copy; {@code dst} may be a heap segment only if {@code bytes} is small (critical). */
    int memcpyDtoH(MemorySegment dst, long src, long bytes);

    int memcpyDtoD(long dst, long src, long bytes);

    int memcpyHtoDAsync(long dst, MemorySegment src, long bytes, MemorySegment stream);

    int memcpyDtoHAsync(MemorySegment dst, long src, long bytes, MemorySegment stream);

    int memcpyDtoDAsync(long dst, long src, long bytes, MemorySegment stream);

    int memcpy2D(MemorySegment desc);

    int memcpy2DAsync(MemorySegment desc, MemorySegment stream);

    int memsetD8(long dst, byte v, long n, MemorySegment stream);

    int memsetD16(long dst, short v, long n, MemorySegment stream);

    int memsetD32(long dst, int v, long n, MemorySegment stream);

    int memsetD2D8(long dst, long pitch, byte v, long width, long height);

    int memsetD2D16(long dst, long pitch, short v, long width, long height);

    int memsetD2D32(long dst, long pitch, int v, long width, long height);

    int streamCreate(MemorySegment out, int flags);

    int streamCreateWithPriority(MemorySegment out, int flags, int priority);

    int streamDestroy(MemorySegment s);

    int streamSynchronize(MemorySegment s);

    int streamQuery(MemorySegment s);

    int streamWaitEvent(MemorySegment s, MemorySegment e);

    int eventCreate(MemorySegment out, int flags);

    int eventRecord(MemorySegment e, MemorySegment s);

    int eventSynchronize(MemorySegment e);

    int eventQuery(MemorySegment e);

    int eventElapsedTime(MemorySegment outMs, MemorySegment start, MemorySegment end);

    int eventDestroy(MemorySegment e);

    int moduleLoadDataEx(MemorySegment out, MemorySegment image, int n, MemorySegment opts, MemorySegment vals);

    int moduleUnload(MemorySegment m);

    int moduleGetFunction(MemorySegment out, MemorySegment m, MemorySegment name);

    int funcGetAttribute(MemorySegment out, int attr, MemorySegment f);

    int launchKernel(MemorySegment f, int gx, int gy, int gz, int bx, int by, int bz, int shmem, MemorySegment stream, MemorySegment params);

    int importExternalMemory(MemorySegment out, MemorySegment desc);

    int externalMemoryGetMappedBuffer(MemorySegment out, MemorySegment ext, MemorySegment desc);

    int destroyExternalMemory(MemorySegment ext);

    /** libc {@code close(fd)}: gives back a file descriptor that an import did not take over. */
    int closeFd(int fd);
}
