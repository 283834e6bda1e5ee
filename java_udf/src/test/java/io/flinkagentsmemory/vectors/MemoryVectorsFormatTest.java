package io.flinkagentsmemory.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Random;

import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.perfield.PerFieldKnnVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryVectorsFormatTest {

    private static final String FIELD = "vector";
    private static final int DIM = 64;

    @TempDir
    Path dir;

    private final Random random = new Random(5);
    private final float[][] vectors = new float[600][];

    MemoryVectorsFormatTest() {
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = VectorUtil.l2normalize(DotProductTest.random(random, DIM));
        }
    }

    /** Written with our codec, read back by name through Lucene's own codec and service loader. */
    @Test
    void anIndexWrittenWithItReadsBackByNameAndFindsEachVector() throws Exception {
        try (Directory directory = FSDirectory.open(dir)) {
            write(directory, new MemoryCodec(), 0, vectors.length);
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                assertEquals(MemoryVectorsFormat.NAME, formatOf(reader.leaves().get(0)));
                assertEachVectorFindsItself(reader, vectors.length);
            }
        }
    }

    /**
     * A checkpoint from before the format holds Lucene's: it stays readable, and a merge of its
     * segments with new ones writes ours.
     */
    @Test
    void segmentsOfLucenesFormatStayReadableAndMergeIntoOurs() throws Exception {
        try (Directory directory = FSDirectory.open(dir)) {
            write(directory, Codec.getDefault(), 0, 300);
            write(directory, new MemoryCodec(), 300, vectors.length);
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                assertEquals(2, reader.leaves().size());
                assertEquals("Lucene99HnswVectorsFormat", formatOf(reader.leaves().get(0)));
                assertEquals(MemoryVectorsFormat.NAME, formatOf(reader.leaves().get(1)));
                assertEachVectorFindsItself(reader, vectors.length);
            }
            try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig().setCodec(new MemoryCodec()))) {
                writer.forceMerge(1);
            }
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                assertEquals(1, reader.leaves().size());
                assertEquals(MemoryVectorsFormat.NAME, formatOf(reader.leaves().get(0)));
                assertEachVectorFindsItself(reader, vectors.length);
            }
        }
    }

    private void write(Directory directory, Codec codec, int from, int to) throws Exception {
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig().setCodec(codec))) {
            for (int i = from; i < to; i++) {
                Document doc = new Document();
                doc.add(new StoredField("n", i));
                doc.add(new KnnFloatVectorField(FIELD, vectors[i], VectorSimilarityFunction.DOT_PRODUCT));
                writer.addDocument(doc);
            }
            writer.commit();
        }
    }

    private void assertEachVectorFindsItself(DirectoryReader reader, int count) throws Exception {
        IndexSearcher searcher = new IndexSearcher(reader);
        for (int i = 0; i < count; i += 7) {
            TopDocs top = searcher.search(new KnnFloatVectorQuery(FIELD, vectors[i], 10), 1);
            int found = searcher.storedFields().document(top.scoreDocs[0].doc).getField("n").numericValue().intValue();
            assertEquals(i, found);
            assertEquals(1f, top.scoreDocs[0].score, 1e-5f);
        }
    }

    private static String formatOf(LeafReaderContext leaf) {
        return leaf.reader().getFieldInfos().fieldInfo(FIELD).getAttribute(PerFieldKnnVectorsFormat.PER_FIELD_FORMAT_KEY);
    }
}
