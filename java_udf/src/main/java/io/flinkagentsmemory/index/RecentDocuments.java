package io.flinkagentsmemory.index;

import java.io.Closeable;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.ByteBuffersIndexInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.SingleInstanceLockFactory;

import io.flinkagentsmemory.vectors.MemoryVectorsFormat;

/**
 * A small in-memory index of the documents added since the main index's reader was opened, so
 * that a read can see them at once without reopening that reader. Reopening flushes the main
 * writer's buffer into a new segment on disk (~20 files created; 4 to 40 ms on a loaded disk), so
 * a key that searches right after each add would otherwise pay for a flush on every search and
 * cut the index into tiny segments. Here the same documents are indexed a second time, in memory,
 * where a reopen creates no file: {@link RefreshingSearchers} searches this index beside the
 * main reader until the main reader is reopened, then {@link #clear}s it.
 *
 * <p>Created empty; the writer is opened at the first add, since a subtask holds many indexes and
 * most never need it.
 */
final class RecentDocuments implements Closeable {

    /**
     * Lucene's codec with vectors stored flat, without an HNSW graph. {@link SegmentScaledKnnQuery}
     * scans these segments ({@link #isRecentSegment}; a graph search of them would find nothing):
     * they hold at most {@link RefreshingSearchers#MAX_RECENT} documents, and building graphs for
     * them at every add and every merge took most of this index's CPU time and caused its long
     * pauses. This index is never committed, so the codec is never looked up by name.
     */
    private static final Codec FLAT_VECTORS = new FilterCodec("FlinkAgentsMemoryRecent", Codec.getDefault()) {
        @Override
        public KnnVectorsFormat knnVectorsFormat() {
            return MemoryVectorsFormat.flat();
        }
    };

    private final Analyzer analyzer;
    private final LongSupplier nanoClock;
    private IndexWriter writer;
    /** Our reference to the reader of {@link #writer}, as of the last {@link #reader()}. */
    private DirectoryReader reader;
    private boolean changed;
    /** Documents added since the last clear (an id added twice counts twice). */
    private int added;
    private long firstAddNanos;
    private final Set<String> keys = new HashSet<>();
    /** The (key, id) of every document held ({@link DocumentSchema#keyId}). */
    private final Set<String> held = new HashSet<>();

    RecentDocuments(Analyzer analyzer, LongSupplier nanoClock) {
        this.analyzer = analyzer;
        this.nanoClock = nanoClock;
    }

    /** Indexes {@code docs}, replacing any held with the same (key, id). */
    void add(List<MemoryDocument> docs) throws IOException {
        if (docs.isEmpty()) {
            return;
        }
        if (writer == null) {
            writer = new IndexWriter(inMemoryDirectory(), new IndexWriterConfig(analyzer)
                    .setSimilarity(Ranker.BM25)
                    .setCodec(FLAT_VECTORS)
                    .setUseCompoundFile(false)
                    .setCommitOnClose(false)
                    // Lucene merges small segments at a reopen and waits up to 500 ms for them:
                    // here they merge in the background, and the read goes on.
                    .setMaxFullFlushMergeWaitMillis(0));
            reader = DirectoryReader.open(writer);
        }
        if (added == 0) {
            firstAddNanos = nanoClock.getAsLong();
        }
        for (MemoryDocument doc : docs) {
            // A delete by term costs every reopen that follows it a pass over the deleted terms:
            // only an id held already is replaced.
            if (held.add(DocumentSchema.keyId(doc.key(), doc.id()))) {
                writer.addDocument(DocumentSchema.toLucene(doc));
            } else {
                writer.updateDocument(DocumentSchema.keyIdTerm(doc.key(), doc.id()), DocumentSchema.toLucene(doc));
            }
            keys.add(doc.key());
        }
        added += docs.size();
        changed = true;
    }

    /**
     * Files in memory, each read back under its own name. Lucene's default names every file it
     * reads back after a description of its buffers, formatted with {@code String.format}: a
     * fifth of the CPU of a reopen after an add of 10 documents (docs/long_term_memory.md).
     */
    private static Directory inMemoryDirectory() {
        return new ByteBuffersDirectory(new SingleInstanceLockFactory(), ByteBuffersDataOutput::new,
                (fileName, output) -> new ByteBuffersIndexInput(output.toDataInput(), fileName));
    }

    /** Whether {@code leaf} is a segment of recent documents: its vectors have no graph. */
    static boolean isRecentSegment(LeafReader leaf) {
        return FilterLeafReader.unwrap(leaf) instanceof SegmentReader segment
                && segment.getSegmentInfo().info.getCodec() == FLAT_VECTORS;
    }

    boolean isEmpty() {
        return added == 0;
    }

    /** Documents added since the last clear. */
    int size() {
        return added;
    }

    /** Nanoseconds since the first document added after the last clear (0 while empty). */
    long ageNanos() {
        return added == 0 ? 0 : nanoClock.getAsLong() - firstAddNanos;
    }

    /** The keys of the documents held. */
    Set<String> keys() {
        return keys;
    }

    /**
     * A reader of every document added, reopened if documents were added since the last call.
     * Valid until the next call or {@link #clear}: a caller that keeps it longer takes its own
     * reference ({@code incRef}).
     */
    DirectoryReader reader() throws IOException {
        if (changed) {
            DirectoryReader newer = DirectoryReader.openIfChanged(reader, writer);
            if (newer != null) {
                reader.decRef();
                reader = newer;
            }
            changed = false;
        }
        return reader;
    }

    /** Drops every document (the main reader now holds them). */
    void clear() throws IOException {
        if (added == 0) {
            return;
        }
        writer.deleteAll();
        added = 0;
        keys.clear();
        held.clear();
        changed = true;
    }

    @Override
    public void close() throws IOException {
        if (writer != null) {
            try {
                reader.decRef();
            } finally {
                writer.rollback();
            }
        }
    }
}
