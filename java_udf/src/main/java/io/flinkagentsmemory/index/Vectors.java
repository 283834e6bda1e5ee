package io.flinkagentsmemory.index;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * Vector helpers for the Python boundary: vectors cross PEMJA as little-endian float32 bytes
 * (one copy, unlike element-wise sequence conversion), and DOT_PRODUCT needs unit vectors.
 */
public final class Vectors {

    /** Allowed deviation of a vector's L2 norm from 1. */
    public static final double NORM_TOLERANCE = 1e-3;

    private Vectors() {}

    /** Decodes little-endian float32 bytes; null stays null (a memory without embedding). */
    public static float[] decode(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        if (bytes.length % Float.BYTES != 0) {
            throw new IllegalArgumentException(
                    "vector bytes length " + bytes.length + " is not a multiple of 4 (float32)");
        }
        return decode(bytes, 0, bytes.length / Float.BYTES);
    }

    /** Decodes {@code dim} floats starting at byte {@code offset}. */
    public static float[] decode(byte[] bytes, int offset, int dim) {
        FloatBuffer floats =
                ByteBuffer.wrap(bytes, offset, dim * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        float[] out = new float[dim];
        floats.get(out);
        return out;
    }

    /** Encodes as little-endian float32 bytes (the inverse of {@link #decode(byte[])}). */
    public static byte[] encode(float[] vector) {
        ByteBuffer buf = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        buf.asFloatBuffer().put(vector);
        return buf.array();
    }

    public static double norm(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        return Math.sqrt(sum);
    }

    /** DOT_PRODUCT similarity is only a cosine for unit vectors; anything else is a caller bug. */
    public static void requireUnitLength(float[] v) {
        double norm = norm(v);
        if (Math.abs(norm - 1.0) > NORM_TOLERANCE) {
            throw new IllegalArgumentException(
                    "vector must be unit length for DOT_PRODUCT, but its norm is " + norm);
        }
    }
}
