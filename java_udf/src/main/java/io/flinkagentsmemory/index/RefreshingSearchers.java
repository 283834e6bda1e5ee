package io.flinkagentsmemory.index;

import java.io.Closeable;
import java.io.IOException;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.SearcherManager;

/**
 * Near-real-time searchers of one index, refreshed only when something changed: after a write,
 * or once a background merge finished (a quiet index is otherwise searched segment by segment
 * long after its merges are done). Every refresh flushes the buffered writes into a segment, so
 * refreshing on every read would cut the index into tiny segments.
 */
final class RefreshingSearchers implements Closeable {

    private final SearcherManager searchers;
    private boolean stale;

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

    /** The writer changed the index: the next {@link #refresh} opens a new reader. */
    void markStale() {
        stale = true;
    }

    /** Opens a new reader if a write or (per {@code mergeFinished}) a merge made the current one old. */
    void refresh(boolean mergeFinished) throws IOException {
        if (stale || mergeFinished) {
            searchers.maybeRefreshBlocking();
            stale = false;
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
