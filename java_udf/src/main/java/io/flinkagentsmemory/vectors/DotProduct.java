package io.flinkagentsmemory.vectors;

import org.apache.lucene.util.VectorUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The float dot product that scores every vector the long-term index reads, chosen once per JVM:
 * SIMD ({@link PanamaDotProduct}) when the JVM was started with
 * {@code --add-modules jdk.incubator.vector}, else Lucene's scalar loop. Lucene 9.12 vectorises
 * its own only on Java 20 to 22; on Java 17 this is the only SIMD path
 * (docs/long_term_memory.md).
 */
public final class DotProduct {

    private static final Logger LOG = LoggerFactory.getLogger(DotProduct.class);
    private static final String VECTOR_MODULE = "jdk.incubator.vector";
    private static final boolean VECTORISED = chooseVectorised();

    private DotProduct() {
    }

    /** Whether {@link #dotProduct} runs on SIMD lanes in this JVM. */
    public static boolean vectorised() {
        return VECTORISED;
    }

    /** The dot product of two vectors of one length. */
    public static float dotProduct(float[] a, float[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("vector dimensions differ: " + a.length + " != " + b.length);
        }
        return VECTORISED ? PanamaDotProduct.dotProduct(a, b) : VectorUtil.dotProduct(a, b);
    }

    private static boolean chooseVectorised() {
        if (ModuleLayer.boot().findModule(VECTOR_MODULE).isEmpty()) {
            LOG.info("Long-term memory scores vectors with Lucene's scalar dot product; start the "
                    + "TaskManagers with --add-modules " + VECTOR_MODULE + " for the SIMD one");
            return false;
        }
        int lanes = PanamaDotProduct.lanes();
        if (lanes < 4) {
            LOG.info("Long-term memory scores vectors with Lucene's scalar dot product: this CPU has "
                    + lanes + " float lanes");
            return false;
        }
        LOG.info("Long-term memory scores vectors with a SIMD dot product, " + lanes + " float lanes");
        return true;
    }
}
