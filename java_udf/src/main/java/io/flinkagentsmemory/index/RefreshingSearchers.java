package io.flinkagentsmemory.index;

import java.io.Closeable;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;

/**
 * What a read searches: the index's near-real-time reader, plus the {@link RecentDocuments}
 * added since that reader was opened. Reopening the reader flushes the writer's buffer into a
 * segment on disk, so it is reopened only when it must be:
 *
 * <ul>
 *   <li>while the recent documents hold every write since the reader was opened (only adds of
 *       new ids), a read of a key that has recent documents searches both (every read is
 *       filtered by its key, so another key's recent documents are nothing to it), and the
 *       reader is reopened once they reach {@link #MAX_RECENT}, before the fold of a quiet index
 *       (which must include them), or once they are {@link #MAX_RECENT_NANOS} old and a read
 *       would search them or a merge finished;
 *   <li>after any other write (a replaced, deleted or purged document: the reader would still
 *       return the old one), the recent documents are dropped and, as before they existed, a
 *       read reopens the reader only if its own key wrote (any key, for a read across keys) or a
 *       merge finished. Every read is filtered by its key, so another key's writes are
 *       invisible to it anyway.
 * </ul>
 */
final class RefreshingSearchers implements Closeable {

    /**
     * Recent documents that make the next read reopen the reader. A reopen per this many adds
     * flushes segments of this size rather than one per add, and bounds the in-memory copy.
     */
    static final int MAX_RECENT = 1_000;

    /**
     * Recent documents older than this are moved into the reader (by reopening it) at the next
     * read that would search them, or that could pick up a finished merge: searching them costs
     * every read of their keys a little, reopening once costs one flush and leaves one more small
     * segment for every read to search. Five seconds, not one: at 200 adds/s a flush then holds
     * about {@link #MAX_RECENT} documents, and a one-key stream left 13 segments instead of 17
     * (docs/long_term_memory.md).
     */
    static final long MAX_RECENT_NANOS = 5_000_000_000L;

    private static final SearcherFactory FACTORY = new SearcherFactory() {
        @Override
        public IndexSearcher newSearcher(IndexReader reader, IndexReader previous) {
            return bm25Searcher(reader);
        }
    };

    private final SearcherManager searchers;
    /** Null for a read-only index. */
    private final RecentDocuments recent;
    /** Whether {@link #recent} holds every write since the reader was opened. */
    private boolean recentCovers = true;
    /** Keys with writes the current reader does not hold (while {@link #recent} does not cover). */
    private final Set<String> staleKeys = new HashSet<>();
    /** A write across keys (a purge of expired documents): every key's read reopens. */
    private boolean allStale;
    /** A merge finished since the reader was opened. */
    private boolean mergeFinished;

    RefreshingSearchers(IndexWriter writer, Analyzer analyzer, LongSupplier nanoClock) throws IOException {
        this.searchers = new SearcherManager(writer, FACTORY);
        this.recent = new RecentDocuments(analyzer, nanoClock);
    }

    /** Searchers of a fixed reader (a read-only index): nothing ever makes them stale. */
    RefreshingSearchers(DirectoryReader reader) throws IOException {
        this.searchers = new SearcherManager(reader, FACTORY);
        this.recent = null;
    }

    /**
     * {@code docs} were added to the writer: searchable at once as recent documents if none
     * replaces a document the reader holds, else their keys' next reads reopen the reader.
     */
    void added(List<MemoryDocument> docs) throws IOException {
        if (recentCovers && recent.size() + docs.size() <= MAX_RECENT && noneHeld(docs)) {
            try {
                recent.add(docs);
                return;
            } catch (IOException | RuntimeException e) {
                // The writer holds them: reads must still find them, by reopening.
                recentCovers = false;
                staleKeys.addAll(recent.keys());
                docs.forEach(doc -> staleKeys.add(doc.key()));
                throw e;
            }
        }
        stopCovering();
        for (MemoryDocument doc : docs) {
            staleKeys.add(doc.key());
        }
    }

    /** {@code key} replaced or deleted documents: its next read reopens the reader. */
    void markStale(String key) throws IOException {
        stopCovering();
        staleKeys.add(key);
    }

    /** A write that may touch any key: the next read of any key reopens the reader. */
    void markAllStale() throws IOException {
        stopCovering();
        allStale = true;
    }

    /**
     * A searcher for a read of {@code key} (null: a read across keys), reopened first if it must
     * be (see the class comment); {@code mergeFinished}: a merge finished since the last call,
     * {@code foldDue}: the index is quiet and will be folded next. Close the lease after the read.
     */
    Lease lease(String key, boolean mergeFinished, boolean foldDue) throws IOException {
        this.mergeFinished |= mergeFinished;
        if (mustReopen(key, foldDue)) {
            reopen();
        }
        IndexSearcher main = searchers.acquire();
        if (recent == null || recent.isEmpty() || (key != null && !recent.keys().contains(key))) {
            // The reader holds every document of this key: the recent ones are another key's.
            return new Lease(main, null);
        }
        try {
            // The MultiReader holds a reference to both readers until the lease is closed.
            MultiReader both = new MultiReader(new IndexReader[] {main.getIndexReader(), recent.reader()}, false);
            return new Lease(main, both);
        } catch (IOException | RuntimeException e) {
            searchers.release(main);
            throw e;
        }
    }

    /**
     * The reader alone, reopened first if a write or a merge ({@code mergeFinished}: one finished
     * since the last call) is not in it yet: a view of the whole index, segment by segment.
     */
    Lease leaseReopened(boolean mergeFinished) throws IOException {
        this.mergeFinished |= mergeFinished;
        if (recent != null && (!recent.isEmpty() || !staleKeys.isEmpty() || allStale || this.mergeFinished)) {
            reopen();
        }
        return new Lease(searchers.acquire(), null);
    }

    /** The current reader alone, without reopening (the index's dimension at open). */
    Lease leaseWithoutRefresh() throws IOException {
        return new Lease(searchers.acquire(), null);
    }

    private boolean mustReopen(String key, boolean foldDue) {
        if (recent == null) {
            return false;
        }
        if (!recentCovers) {
            return allStale || mergeFinished || (key == null ? !staleKeys.isEmpty() : staleKeys.contains(key));
        }
        if (recent.isEmpty()) {
            return mergeFinished;
        }
        if (recent.size() >= MAX_RECENT || foldDue) {
            return true;
        }
        return recent.ageNanos() >= MAX_RECENT_NANOS
                && (mergeFinished || key == null || recent.keys().contains(key));
    }

    private void reopen() throws IOException {
        searchers.maybeRefreshBlocking();
        // The new reader holds every write so far.
        staleKeys.clear();
        allStale = false;
        mergeFinished = false;
        recent.clear();
        recentCovers = true;
    }

    /** From now on reads go by stale keys: the recent documents' keys become stale. */
    private void stopCovering() throws IOException {
        if (recentCovers) {
            recentCovers = false;
            staleKeys.addAll(recent.keys());
            recent.clear();
        }
    }

    /** Whether the current reader holds no document with the (key, id) of any of {@code docs}. */
    private boolean noneHeld(List<MemoryDocument> docs) throws IOException {
        IndexSearcher s = searchers.acquire();
        try {
            for (MemoryDocument doc : docs) {
                if (s.count(new TermQuery(DocumentSchema.keyIdTerm(doc.key(), doc.id()))) > 0) {
                    return false;
                }
            }
            return true;
        } finally {
            searchers.release(s);
        }
    }

    private static IndexSearcher bm25Searcher(IndexReader reader) {
        IndexSearcher searcher = new IndexSearcher(reader);
        searcher.setSimilarity(Ranker.BM25);
        return searcher;
    }

    @Override
    public void close() throws IOException {
        try {
            searchers.close();
        } finally {
            if (recent != null) {
                recent.close();
            }
        }
    }

    /** One read's searcher; closing it gives back what the read held. */
    final class Lease implements Closeable {

        private final IndexSearcher main;
        private final MultiReader both;
        private final IndexSearcher searcher;

        private Lease(IndexSearcher main, MultiReader both) {
            this.main = main;
            this.both = both;
            this.searcher = both == null ? main : bm25Searcher(both);
        }

        IndexSearcher searcher() {
            return searcher;
        }

        @Override
        public void close() throws IOException {
            try {
                if (both != null) {
                    both.close();
                }
            } finally {
                searchers.release(main);
            }
        }
    }
}
