package io.jkompute;

/**
 * How many workgroups a dispatch launches in x, y and z (the local size is declared in the shader).
 * {@link #DEFAULT} means Kompute's rule: (element count of the first bound tensor or image, 1, 1).
 */
public record Workgroup(int x, int y, int z) {
    /**
     * Kompute's default: (element count of the first bound tensor or image, 1, 1), resolved when the algorithm is
     * built.
     */
    public static final Workgroup DEFAULT = new Workgroup(0, 0, 0);

    /** Checks the counts; throws {@link IllegalArgumentException} if any is negative. */
    public Workgroup {
        if (x < 0 || y < 0 || z < 0) {
            throw new IllegalArgumentException("workgroup counts must not be negative, got (" + x + ", " + y + ", " + z + ")");
        }
    }

    /** {@code x} workgroups in x, one in y and z. */
    public static Workgroup of(int x) {
        return new Workgroup(x, 1, 1);
    }

    /** {@code x} by {@code y} workgroups, one in z. */
    public static Workgroup of(int x, int y) {
        return new Workgroup(x, y, 1);
    }

    /** {@code x} by {@code y} by {@code z} workgroups. */
    public static Workgroup of(int x, int y, int z) {
        return new Workgroup(x, y, z);
    }

    /** Enough workgroups of {@code localSize} invocations to cover {@code n} elements. */
    public static Workgroup covering(long n, int localSize) {
        long groups = (n + localSize - 1) / localSize;
        if (groups > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(n + " elements need " + groups + " workgroups of " + localSize);
        }
        return new Workgroup((int) groups, 1, 1);
    }

    boolean isDefault() {
        return x == 0;
    }
}
