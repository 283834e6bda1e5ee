import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * The vectors of the Java harnesses: bench_ltm's kind of data (unit vectors around random
 * centres, Gaussian noise 0.05 per dimension) and uniformly random unit vectors (HNSW's hard
 * case), or rows read from a file. Compiled beside each harness.
 */
final class BenchVectors {

    static final int CLUSTERS = 1000;

    private BenchVectors() {}

    /** {@link #CLUSTERS} random unit centres. */
    static float[][] centres(Random random, int dim) {
        float[][] centres = new float[CLUSTERS][];
        for (int i = 0; i < CLUSTERS; i++) {
            centres[i] = uniform(random, dim);
        }
        return centres;
    }

    /** A unit vector near one of {@code centres}, chosen at random. */
    static float[] clustered(Random random, float[][] centres) {
        int dim = centres[0].length;
        float[] v = gaussian(random, dim, 0.05f);
        float[] centre = centres[random.nextInt(centres.length)];
        for (int i = 0; i < dim; i++) {
            v[i] += centre[i];
        }
        return unit(v);
    }

    /** A unit vector in a uniformly random direction. */
    static float[] uniform(Random random, int dim) {
        return unit(gaussian(random, dim, 1f));
    }

    /** The first {@code rows} rows of {@code dim} little-endian float32 each in {@code file}. */
    static float[][] fromFile(Path file, int rows, int dim) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.capacity() < (long) rows * dim * Float.BYTES) {
            throw new IllegalArgumentException(file + " holds fewer than " + rows + " rows of " + dim + " floats");
        }
        float[][] out = new float[rows][dim];
        for (float[] row : out) {
            bytes.asFloatBuffer().get(row);
            bytes.position(bytes.position() + dim * Float.BYTES);
        }
        return out;
    }

    private static float[] gaussian(Random random, int dim, float scale) {
        float[] v = new float[dim];
        for (int i = 0; i < dim; i++) {
            v[i] = scale * (float) random.nextGaussian();
        }
        return v;
    }

    private static float[] unit(float[] v) {
        double norm = 0;
        for (float x : v) {
            norm += x * x;
        }
        float scale = (float) (1 / Math.sqrt(norm));
        for (int i = 0; i < v.length; i++) {
            v[i] *= scale;
        }
        return v;
    }
}
