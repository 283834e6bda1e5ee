package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.List;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * A Lucene writer over a heap directory holding documents in {@link DocumentSchema}'s layout,
 * for the tests of the parts of {@link KeyGroupIndex} that work on a searcher.
 */
final class InMemoryIndex implements AutoCloseable {

    final ByteBuffersDirectory directory = new ByteBuffersDirectory();
    final IndexWriter writer;
    private DirectoryReader reader;

    InMemoryIndex() throws IOException {
        writer = new IndexWriter(directory, new IndexWriterConfig(new StandardAnalyzer()));
    }

    /** Writes {@code docs}, each in its own segment when {@code segmentEach}. */
    InMemoryIndex add(List<MemoryDocument> docs, boolean segmentEach) throws IOException {
        for (MemoryDocument doc : docs) {
            writer.updateDocument(DocumentSchema.keyIdTerm(doc.key(), doc.id()), DocumentSchema.toLucene(doc));
            if (segmentEach) {
                writer.flush();
            }
        }
        return this;
    }

    InMemoryIndex add(MemoryDocument... docs) throws IOException {
        return add(List.of(docs), false);
    }

    /** A searcher over everything written so far. */
    IndexSearcher searcher() throws IOException {
        DirectoryReader fresh = reader == null ? DirectoryReader.open(writer) : DirectoryReader.openIfChanged(reader);
        if (fresh != null) {
            if (reader != null) {
                reader.close();
            }
            reader = fresh;
        }
        return new IndexSearcher(reader);
    }

    @Override
    public void close() throws IOException {
        if (reader != null) {
            reader.close();
        }
        writer.close();
        directory.close();
    }
}
