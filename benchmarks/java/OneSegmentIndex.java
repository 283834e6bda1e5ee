import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/** The Java harnesses' index: the vectors in field "v", one doc each, merged into one segment. */
final class OneSegmentIndex {

    private OneSegmentIndex() {}

    /** Writes {@code vectors} into {@code dir} with {@code format}; the seconds it took. */
    static double build(Path dir, KnnVectorsFormat format, float[][] vectors, double ramBufferMb)
            throws IOException {
        Codec codec = new Lucene912Codec() {
            @Override
            public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
                return format;
            }
        };
        long start = System.nanoTime();
        try (Directory d = FSDirectory.open(dir);
                IndexWriter w = new IndexWriter(d, new IndexWriterConfig().setCodec(codec).setRAMBufferSizeMB(ramBufferMb))) {
            for (float[] v : vectors) {
                Document doc = new Document();
                doc.add(new KnnFloatVectorField("v", v, VectorSimilarityFunction.DOT_PRODUCT));
                w.addDocument(doc);
            }
            w.forceMerge(1);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** Bytes of the files in {@code dir}. */
    static long bytes(Path dir) throws IOException {
        long bytes = 0;
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                bytes += Files.size(p);
            }
        }
        return bytes;
    }

    /** Deletes {@code dir} and the index in it: as large as the vectors, too large to leave in tmp. */
    static void delete(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
