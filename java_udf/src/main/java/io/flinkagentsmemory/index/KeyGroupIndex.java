package io.flinkagentsmemory.index;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexCommit;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

import io.flinkagentsmemory.vectors.MemoryCodec;

/**
 * The long-term memories of one Flink key group, in one local Lucene index. One index per key
 * group lets rescaling move whole indexes, exactly like Flink moves its own keyed state.
 *
 * <p>Every read takes the key and puts a TermQuery on {@code key} in as a FILTER clause; writes
 * address documents by the (key, id) term {@code key_id}. No call can reach another key's
 * documents, even with a colliding id. Expired documents (expires_at &lt;= now) are never returned.
 *
 * <p>This class is the index's one entry point and sequences its parts: {@link DocumentSchema}
 * (the Lucene layout), {@link DocumentValidator} (what may be written), {@link KeyFilters} (what
 * a read may see), {@link Ranker} (search), {@link RefreshingSearchers} (what a read searches,
 * when readers reopen), {@link FoldScheduler} (when segments merge) and {@link CommitPins}
 * (checkpointed commits).
 *
 * <p>Not meant for concurrent writers: the operator calls it from its task thread.
 *
 * <p>{@link #openReadOnly} opens a committed index without a writer (the inspector reads a
 * savepoint's files in place with it): the reads are the same code, the writes throw.
 */
public final class KeyGroupIndex implements Closeable {

    /** Default RAM buffer: small, because a subtask may hold many key groups open. */
    public static final double DEFAULT_RAM_BUFFER_MB = 8.0;

    /**
     * An index with no write for this long folds its segments into one at its next read. Short
     * enough that an index loaded in a burst is searched as one segment seconds later; long
     * enough that a steady stream of writes (each reopen of the reader flushes a segment) never
     * rewrites the largest segment for every few new documents.
     */
    public static final long DEFAULT_QUIET_MILLIS = 5_000;

    private final int keyGroup;
    private final Directory directory;
    private final Analyzer analyzer = new StandardAnalyzer();
    private final CommitPins pins = new CommitPins();
    private final FoldScheduler folds;
    /** Null for a read-only index. */
    private final IndexWriter writer;
    private final RefreshingSearchers searchers;
    private final DocumentValidator validator;
    private final Ranker ranker;

    private KeyGroupIndex(int keyGroup, Directory directory, double ramBufferMb, long quietMillis)
            throws IOException {
        this.keyGroup = keyGroup;
        this.directory = directory;
        this.folds = new FoldScheduler(quietMillis);
        IndexWriterConfig config = folds.configure(new IndexWriterConfig(analyzer), pins.deletionPolicy())
                .setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND)
                .setRAMBufferSizeMB(ramBufferMb)
                .setCodec(new MemoryCodec())
                .setSimilarity(Ranker.BM25);
        this.writer = new IndexWriter(directory, config);
        // A new index needs a first commit, or there is nothing to snapshot.
        writer.commit();
        this.searchers = new RefreshingSearchers(writer, analyzer, System::nanoTime);
        this.validator = new DocumentValidator(keyGroup, storedDimension());
        this.ranker = new Ranker(analyzer, validator);
    }

    /** A read-only index over the last commit in {@code directory}: no writer, no lock, no fold. */
    private KeyGroupIndex(int keyGroup, Directory directory) throws IOException {
        this.keyGroup = keyGroup;
        this.directory = directory;
        this.folds = new FoldScheduler(Long.MAX_VALUE / 1_000_000);
        this.writer = null;
        this.searchers = new RefreshingSearchers(DirectoryReader.open(directory));
        this.validator = new DocumentValidator(keyGroup, storedDimension());
        this.ranker = new Ranker(analyzer, validator);
    }

    /**
     * Opens the last commit of {@code directory} for reading only: nothing is written to it (no
     * lock file, no commit, no merge), so it may be a read-only directory. Every write throws
     * {@link UnsupportedOperationException}. Closing the index closes {@code directory}.
     */
    public static KeyGroupIndex openReadOnly(Directory directory, int keyGroup) throws IOException {
        try {
            return new KeyGroupIndex(keyGroup, directory);
        } catch (IOException | RuntimeException e) {
            directory.close();
            throw e;
        }
    }

    /** Whether this index was opened by {@link #openReadOnly}. */
    public boolean readOnly() {
        return writer == null;
    }

    /** Opens (or creates) the index of {@code keyGroup} in {@code path}. */
    public static KeyGroupIndex open(Path path, int keyGroup, double ramBufferMb) throws IOException {
        return open(path, keyGroup, ramBufferMb, DEFAULT_QUIET_MILLIS);
    }

    /** As {@link #open(Path, int, double)}, folding segments after {@code quietMillis} without writes. */
    public static KeyGroupIndex open(Path path, int keyGroup, double ramBufferMb, long quietMillis)
            throws IOException {
        Directory dir = FSDirectory.open(path);
        try {
            return new KeyGroupIndex(keyGroup, dir, ramBufferMb, quietMillis);
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    public int keyGroup() {
        return keyGroup;
    }

    /** The vector dimension fixed by the first document with a vector, or -1 while none. */
    public int dimension() {
        return validator.dimension();
    }

    /** Adds {@code doc}, replacing a document with the same (key, id): a replayed add is idempotent. */
    public void add(MemoryDocument doc) throws IOException {
        addAll(List.of(doc));
    }

    /** Adds all documents; all are validated before any is written. */
    public void addAll(List<MemoryDocument> docs) throws IOException {
        IndexWriter writer = writer();
        validator.validate(docs);
        for (MemoryDocument doc : docs) {
            writer.updateDocument(DocumentSchema.keyIdTerm(doc.key(), doc.id()), DocumentSchema.toLucene(doc));
        }
        searchers.added(docs);
        wrote();
    }

    /**
     * Replaces the document {@code id} of {@code key} (expired or not) by {@code doc}, keeping the
     * old vector when {@code doc} has none; false if there is no such document.
     */
    public boolean update(String key, String id, MemoryDocument doc) throws IOException {
        IndexWriter writer = writer();
        MemoryDocument existing = stored(key, id);
        if (existing == null) {
            return false;
        }
        MemoryDocument replacement = doc.withIdentity(id, key, keyGroup);
        if (replacement.vector() == null) {
            replacement = replacement.withVector(existing.vector());
        }
        validator.validate(List.of(replacement));
        writer.updateDocument(DocumentSchema.keyIdTerm(key, id), DocumentSchema.toLucene(replacement));
        searchers.markStale(key);
        wrote();
        return true;
    }

    public boolean delete(String key, String id) throws IOException {
        IndexWriter writer = writer();
        if (stored(key, id) == null) {
            return false;
        }
        writer.deleteDocuments(DocumentSchema.keyIdTerm(key, id));
        searchers.markStale(key);
        wrote();
        return true;
    }

    /** The live document {@code id} of {@code key}, or null. */
    public MemoryDocument get(String key, String id, long nowMillis) throws IOException {
        return first(key, s -> KeyFilters.live(s, key, nowMillis, MetadataFilter.none(),
                new TermQuery(new Term(DocumentSchema.ID, id))));
    }

    /** Live documents of {@code key} matching {@code filters}, newest (created_at) first. */
    public List<MemoryDocument> getAll(String key, MetadataFilter filters, int limit, long nowMillis)
            throws IOException {
        DocumentValidator.requirePositive(limit);
        return read(key, s -> {
            TopDocs top = s.search(KeyFilters.live(s, key, nowMillis, filters), limit, DocumentSchema.newestFirst());
            List<MemoryDocument> out = new ArrayList<>(top.scoreDocs.length);
            StoredFields fields = s.storedFields();
            for (ScoreDoc sd : top.scoreDocs) {
                out.add(DocumentSchema.read(s.getIndexReader(), fields, sd.doc, true));
            }
            return out;
        });
    }

    /** The newest live document of {@code key} with this content hash (dedup), or null. */
    public MemoryDocument findByHash(String key, String hash, long nowMillis) throws IOException {
        return first(key, s -> KeyFilters.live(s, key, nowMillis, MetadataFilter.none(),
                new TermQuery(new Term(DocumentSchema.HASH, hash))));
    }

    public int count(String key, long nowMillis) throws IOException {
        return read(key, s -> s.count(KeyFilters.live(s, key, nowMillis, MetadataFilter.none())));
    }

    /**
     * Ranks the live documents of {@code key} as {@link Ranker} describes, keeping hits that
     * reach {@code options.minScore()} (on the mode's own scale), at most {@code options.limit()}.
     */
    public List<SearchHit> search(String key, String queryText, float[] queryVector, SearchOptions options)
            throws IOException {
        if (options.mode() != SearchOptions.Mode.KEYWORD && queryVector == null) {
            throw new IllegalArgumentException(options.mode() + " search needs a query vector");
        }
        return read(key, s -> {
            boolean expired = KeyFilters.anyExpired(s, options.nowMillis());
            Query filter = KeyFilters.live(key, expired, options.nowMillis(), options.filters());
            // Unfiltered kNN when the filter would keep every live document (see keyHoldsIndex).
            Query vectorFilter = !expired && options.filters().isEmpty() && KeyFilters.keyHoldsIndex(s, key)
                    ? null : filter;
            List<ScoreDoc> ranked = ranker.rank(s, options, vectorFilter, filter, queryText, queryVector);
            List<SearchHit> out = new ArrayList<>();
            StoredFields fields = s.storedFields();
            for (ScoreDoc sd : ranked) {
                if (out.size() == options.limit()) {
                    break;
                }
                if (options.minScore() == null || sd.score >= options.minScore()) {
                    out.add(new SearchHit(DocumentSchema.read(s.getIndexReader(), fields, sd.doc, false), sd.score));
                }
            }
            return out;
        });
    }

    /** Deletes every expired document of every key; returns how many. */
    public int purgeExpired(long nowMillis) throws IOException {
        IndexWriter writer = writer();
        Query expired = LongPoint.newRangeQuery(DocumentSchema.EXPIRES_AT, Long.MIN_VALUE, nowMillis);
        int n = read(null, s -> s.count(expired));
        if (n > 0) {
            writer.deleteDocuments(expired);
            searchers.markAllStale();
            wrote();
        }
        return n;
    }

    /**
     * Keeps the {@code keep} newest (created_at) documents of {@code key}, expired ones included,
     * and deletes the rest; returns how many were deleted.
     */
    public int deleteOldest(String key, int keep) throws IOException {
        if (keep < 0) {
            throw new IllegalArgumentException("keep must not be negative, got " + keep);
        }
        IndexWriter writer = writer();
        Query all = new BooleanQuery.Builder().add(KeyFilters.key(key), Occur.FILTER).build();
        List<String> victims = read(key, s -> {
            List<String> ids = new ArrayList<>();
            int total = s.count(all);
            if (total <= keep) {
                return ids;
            }
            TopDocs top = s.search(all, total, DocumentSchema.newestFirst());
            for (int i = keep; i < top.scoreDocs.length; i++) {
                ids.add(s.storedFields().document(top.scoreDocs[i].doc).get(DocumentSchema.ID));
            }
            return ids;
        });
        if (victims.isEmpty()) {
            return 0;
        }
        for (String id : victims) {
            writer.deleteDocuments(DocumentSchema.keyIdTerm(key, id));
        }
        searchers.markStale(key);
        wrote();
        return victims.size();
    }

    /**
     * Throws if a failure closed the writer (Lucene's "tragic" exceptions: a background merge
     * that met a full disk, for example). Every later call would otherwise fail with an
     * {@code AlreadyClosedException} that does not say why; this names the first failure.
     */
    public void requireUsable() throws IOException {
        if (writer == null) {
            return; // a read-only index has no writer to fail
        }
        Throwable tragic = writer.getTragicException();
        if (tragic != null) {
            throw new IOException("the long-term memory index of key group " + keyGroup
                    + " was closed by an earlier failure: " + tragic, tragic);
        }
    }

    /** Live and expired documents of all keys, as of the last write. */
    public int numDocs() throws IOException {
        return read(null, s -> s.getIndexReader().numDocs());
    }

    /**
     * Segments of the index, every write included: each costs a kNN query one graph search.
     * Reopens the reader if a write or a merge is not in it yet (so recent documents held in
     * memory are flushed into a segment, and counted there).
     */
    public int segmentCount() throws IOException {
        try (RefreshingSearchers.Lease lease = searchers.leaseReopened(writer != null && folds.takeFinishedMerge())) {
            return lease.searcher().getIndexReader().leaves().size();
        }
    }

    /**
     * The HNSW beam a search asking for none uses now: its largest segment's calibrated beam once
     * known, the default until then (asking may start the calibration, {@link CalibratedBeams}).
     */
    public int hnswBeam() throws IOException {
        return read(null, s -> SegmentScaledKnnQuery.calibratedBeam(s.getIndexReader(), DocumentSchema.VECTOR));
    }

    /**
     * Blocks until no merge is running or pending, the fold of a quiet index included
     * (benchmarks and tests measure a settled index with it; merges otherwise run in the
     * background and the next read picks their result up).
     */
    public void awaitMerges() throws IOException {
        if (writer == null) {
            return; // nothing merges a read-only index
        }
        folds.awaitMerges(writer);
    }

    public void commit() throws IOException {
        writer().commit();
    }

    /**
     * Commits and pins that commit's files until {@link #releaseCommit}: the checkpoint copies
     * them while the writer goes on.
     */
    public IndexCommit acquireCommit() throws IOException {
        return pins.pin(writer());
    }

    public void releaseCommit(IndexCommit commit) throws IOException {
        pins.release(writer(), commit);
    }

    /** Where the files of {@link #acquireCommit()} are read from. */
    public Directory directory() {
        return directory;
    }

    /**
     * Closes without committing: what the last commit does not hold is dropped, and nothing is
     * written (an {@code IndexWriter.close()} flushes and commits, which fails on a full disk).
     */
    public void discard() throws IOException {
        try {
            searchers.close();
            if (writer != null) {
                writer.rollback();
            }
        } finally {
            directory.close();
            analyzer.close();
        }
    }

    /** Commits and closes. */
    @Override
    public void close() throws IOException {
        try {
            searchers.close();
            if (writer != null) {
                writer.close();
            }
        } finally {
            directory.close();
            analyzer.close();
        }
    }

    /** A read against one searcher. */
    @FunctionalInterface
    private interface SearcherRead<T> {
        T on(IndexSearcher s) throws IOException;
    }

    /**
     * Runs {@code read} of {@code key} (null: a read across keys) on a searcher that sees every
     * write of that key (of any key, for null): see {@link RefreshingSearchers}. A quiet index
     * asks for its fold first.
     */
    private <T> T read(String key, SearcherRead<T> read) throws IOException {
        boolean writable = writer != null;
        // A fold due reopens the reader first: that flushes buffered writes, so the fold includes them.
        try (RefreshingSearchers.Lease lease = searchers.lease(key, writable && folds.takeFinishedMerge(),
                writable && folds.foldDue())) {
            if (writable) {
                folds.maybeFold(writer);
            }
            return read.on(lease.searcher());
        }
    }

    /** The newest document matching the query built on the searcher (its filter depends on its documents). */
    private MemoryDocument first(String key, SearcherRead<Query> query) throws IOException {
        return read(key, s -> {
            TopDocs top = s.search(query.on(s), 1, DocumentSchema.newestFirst());
            return top.scoreDocs.length == 0
                    ? null
                    : DocumentSchema.read(s.getIndexReader(), s.storedFields(), top.scoreDocs[0].doc, true);
        });
    }

    /** The document (key, id) whether expired or not, or null. */
    private MemoryDocument stored(String key, String id) throws IOException {
        return first(key, s -> new BooleanQuery.Builder()
                .add(KeyFilters.key(key), Occur.FILTER)
                .add(new TermQuery(DocumentSchema.keyIdTerm(key, id)), Occur.FILTER)
                .build());
    }

    /** The dimension of the vectors already in the index (-1: none), read without refresh or fold. */
    private int storedDimension() throws IOException {
        try (RefreshingSearchers.Lease lease = searchers.leaseWithoutRefresh()) {
            return DocumentValidator.dimensionOf(lease.searcher().getIndexReader());
        }
    }

    /** The writer; a read-only index has none, and every write ends here. */
    private IndexWriter writer() {
        if (writer == null) {
            throw new UnsupportedOperationException("the index of key group " + keyGroup + " is read-only");
        }
        return writer;
    }

    /** After every write (its key marked stale): the index is not quiet (no fold under writes). */
    private void wrote() {
        folds.wrote();
    }
}
