package io.jkompute.graph.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.BitSet;
import java.util.Optional;

/**
 * The calling thread's CPU affinity through libc's {@code sched_getaffinity} / {@code sched_setaffinity} (Linux),
 * called with the JDK's FFM API: no JNI. Elsewhere {@link #isSupported()} is false and callers warn.
 */
public final class CpuAffinity {
    /** glibc's cpu_set_t: 1024 CPUs. */
    private static final int SET_BYTES = 128;
    private static final MethodHandle GET;
    private static final MethodHandle SET;
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(
            java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));

    static {
        MethodHandle get = null;
        MethodHandle set = null;
        if (System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
            Linker.Option errno = Linker.Option.captureCallState("errno");
            Optional<MemorySegment> g = libc.find("sched_getaffinity");
            Optional<MemorySegment> s = libc.find("sched_setaffinity");
            if (g.isPresent() && s.isPresent()) {
                get = linker.downcallHandle(g.get(), fd, errno);
                set = linker.downcallHandle(s.get(), fd, errno);
            }
        }
        GET = get;
        SET = set;
    }

    private CpuAffinity() {
    }

    /** Whether affinity can be read and set here (Linux with libc). */
    public static boolean isSupported() {
        return GET != null;
    }

    /** The CPUs the calling thread may run on. */
    public static BitSet current() {
        requireSupported();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            MemorySegment state = arena.allocate(CALL_STATE);
            int rc = (int) GET.invokeExact(state, 0, (long) SET_BYTES, mask);
            check(rc, state, "sched_getaffinity");
            return BitSet.valueOf(mask.toArray(ValueLayout.JAVA_BYTE));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_getaffinity failed: " + t, t);
        }
    }

    /** Confines the calling thread to {@code cpus}; fails naming the CPUs when the kernel refuses (e.g. none online). */
    public static void set(BitSet cpus) {
        requireSupported();
        if (cpus.isEmpty() || cpus.length() > SET_BYTES * 8) {
            throw new IllegalArgumentException("CPU set " + cpus + " must name CPUs 0.." + (SET_BYTES * 8 - 1));
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            byte[] bytes = cpus.toByteArray();
            MemorySegment.copy(bytes, 0, mask, ValueLayout.JAVA_BYTE, 0, bytes.length);
            MemorySegment state = arena.allocate(CALL_STATE);
            int rc = (int) SET.invokeExact(state, 0, (long) SET_BYTES, mask);
            check(rc, state, "sched_setaffinity to CPUs " + cpus);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity failed: " + t, t);
        }
    }

    private static void check(int rc, MemorySegment state, String what) {
        if (rc != 0) {
            int errno = (int) ERRNO.get(state, 0L);
            String why = switch (errno) {
                case 22 -> "EINVAL: none of those CPUs is online or allowed";
                case 1 -> "EPERM: not allowed";
                case 3 -> "ESRCH: no such thread";
                default -> "errno " + errno;
            };
            throw new IllegalStateException(what + " failed: " + why);
        }
    }

    private static void requireSupported() {
        if (!isSupported()) {
            throw new UnsupportedOperationException("CPU affinity needs Linux's sched_setaffinity; this is "
                    + System.getProperty("os.name"));
        }
    }
}
