package io.jkompute.cuda;

/**
 * A grid or block size in up to three dimensions, each at least 1.
 *
 * @param x threads (block) or blocks (grid) along x
 * @param y along y
 * @param z along z
 */
public record Dim3(int x, int y, int z) {
    /** Checks each dimension; throws {@link IllegalArgumentException} if any is below 1. */
    public Dim3 {
        if (x < 1 || y < 1 || z < 1) throw new IllegalArgumentException("dimensions must be >= 1, were (" + x + ", " + y + ", " + z + ")");
    }

    /** (x, 1, 1). */
    public static Dim3 of(int x) {
        return new Dim3(x, 1, 1);
    }

    /** (x, y, 1). */
    public static Dim3 of(int x, int y) {
        return new Dim3(x, y, 1);
    }

    /** (x, y, z). */
    public static Dim3 of(int x, int y, int z) {
        return new Dim3(x, y, z);
    }

    /** Enough blocks of {@code blockSize} to cover {@code n} items: ceil(n / blockSize). */
    public static Dim3 blocksFor(long n, int blockSize) {
        if (n < 1 || blockSize < 1) throw new IllegalArgumentException("n and blockSize must be >= 1, were " + n + ", " + blockSize);
        long b = (n + blockSize - 1) / blockSize;
        if (b > Integer.MAX_VALUE) throw new IllegalArgumentException(n + " items need more than 2^31-1 blocks of " + blockSize);
        return of((int) b);
    }

    /** x·y·z. */
    public long count() {
        return (long) x * y * z;
    }
}
