package io.flinkagentsmemory.index;

import java.io.Closeable;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.SearcherManager;

/**
 * Near-real-time searchers of one index, refreshed only when a read needs it: when the key it
 * reads has written since the last refresh, or once a background merge finished (a quiet index
 * is otherwise searched segment by segment long after its merges are done). Every read is
 * filtered by its key, so another key's writes are invisible to it anyway: a reader a few writes
 * old serves it exactly. Every refresh flushes the buffered writes into a segment (on a slow
 * disk ~10-60 ms for ~20 new files), so refreshing for every write would cut the index into tiny
 * segments and make each read after another key's write pay for that flush.
 */
final class RefreshingSearchers implements Closeable {

    private final SearcherManager searchers;
    /** Keys with writes the current reader does not hold. */
    private final Set<String> staleKeys = new HashSet<>();
    /** A write across keys (a purge of expired documents): every key's read refreshes. */
    private boolean allStale;

    RefreshingSearchers(IndexWriter writer) throws IOException {
        this.searchers = new SearcherManager(writer, FACTORY);
    }

    /** Searchers of a fixed reader (a read-only index): nothing ever makes them stale. */
    RefreshingSearchers(DirectoryReader reader) throws IOException {
        this.searchers = new SearcherManager(reader, FACTORY);
    }

    private static final SearcherFactory FACTORY = new SearcherFactory() {
        @Override
        public IndexSearcher newSearcher(IndexReader reader, IndexReader previous) {
            IndexSearcher searcher = new IndexSearcher(reader);
            searcher.setSimilarity(Ranker.BM25);
            return searcher;
        }
    };

    /** {@code key} wrote: its next read opens a new reader. */
    void markStale(String key) {
        staleKeys.add(key);
    }

    /** A write that may touch any key: the next read of any key opens a new reader. */
    void markAllStale() {
        allStale = true;
    }

    /**
     * Before a read of {@code key} (null: a read across keys): opens a new reader if that key
     * wrote (null: anything was written) or, per {@code mergeFinished}, a merge finished since
     * the current reader was opened.
     */
    void refresh(String key, boolean mergeFinished) throws IOException {
        boolean stale = allStale || (key == null ? !staleKeys.isEmpty() : staleKeys.contains(key));
        if (stale || mergeFinished) {
            searchers.maybeRefreshBlocking();
            staleKeys.clear();
            allStale = false;
        }
    }

    /** The current searcher, as of the last refresh; give it back with {@link #release}. */
    IndexSearcher acquire() throws IOException {
        return searchers.acquire();
    }

    void release(IndexSearcher searcher) throws IOException {
        searchers.release(searcher);
    }

    @Override
    public void close() throws IOException {
        searchers.close();
    }
}
