package io.flinkagentsmemory.index;

import java.io.Closeable;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;

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
            writer = new IndexWriter(new ByteBuffersDirectory(), new IndexWriterConfig(analyzer)
                    .setSimilarity(Ranker.BM25)
                    .setUseCompoundFile(false)
                    .setCommitOnClose(false));
            reader = DirectoryReader.open(writer);
        }
        if (added == 0) {
            firstAddNanos = nanoClock.getAsLong();
        }
        for (MemoryDocument doc : docs) {
            writer.updateDocument(DocumentSchema.keyIdTerm(doc.key(), doc.id()), DocumentSchema.toLucene(doc));
            keys.add(doc.key());
        }
        added += docs.size();
        changed = true;
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
