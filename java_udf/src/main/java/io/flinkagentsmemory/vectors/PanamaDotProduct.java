package io.flinkagentsmemory.vectors;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The dot product on the JDK's incubating vector API (SIMD lanes: 16 floats with AVX-512, 8
 * with AVX2). Only {@link DotProduct} loads this class, and only when the JVM was started with
 * {@code --add-modules jdk.incubator.vector}: without the module the class cannot link.
 */
final class PanamaDotProduct {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;

    private PanamaDotProduct() {
    }

    /** Lanes per vector register; 1 would make the loop slower than the scalar one. */
    static int lanes() {
        return SPECIES.length();
    }

    /** Two accumulators hide the add's latency; the tail past the last full lane set is scalar. */
    static float dotProduct(float[] a, float[] b) {
        int lanes = SPECIES.length();
        int i = 0;
        FloatVector even = FloatVector.zero(SPECIES);
        FloatVector odd = FloatVector.zero(SPECIES);
        int pairs = a.length - a.length % (2 * lanes);
        for (; i < pairs; i += 2 * lanes) {
            even = FloatVector.fromArray(SPECIES, a, i).mul(FloatVector.fromArray(SPECIES, b, i)).add(even);
            odd = FloatVector.fromArray(SPECIES, a, i + lanes)
                    .mul(FloatVector.fromArray(SPECIES, b, i + lanes)).add(odd);
        }
        int single = a.length - a.length % lanes;
        for (; i < single; i += lanes) {
            even = FloatVector.fromArray(SPECIES, a, i).mul(FloatVector.fromArray(SPECIES, b, i)).add(even);
        }
        float sum = even.add(odd).reduceLanes(VectorOperators.ADD);
        for (; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }
}
