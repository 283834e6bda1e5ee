package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static io.flinkagentsmemory.index.TestDocs.exactTop;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Adds of new ids are searched at once without reopening the reader; after a replacement or a
 * delete, the reader reopens for a read of a key that wrote, a read across keys after any write,
 * or a finished merge; only then.
 */
class RefreshingSearchersTest {

    private static final int K = 10;

    private final AtomicLong clock = new AtomicLong();
    private ByteBuffersDirectory dir;
    private IndexWriter writer;
    private RefreshingSearchers searchers;

    @BeforeEach
    void open() throws Exception {
        dir = new ByteBuffersDirectory();
        StandardAnalyzer analyzer = new StandardAnalyzer();
        writer = new IndexWriter(dir, new IndexWriterConfig(analyzer));
        searchers = new RefreshingSearchers(writer, analyzer, clock::get);
    }

    @AfterEach
    void close() throws Exception {
        searchers.close();
        writer.close();
        dir.close();
    }

    @Test
    void addsOfNewIdsAreSearchedWithoutReopeningTheReader() throws Exception {
        add("alice", "a", "b");
        assertEquals(2, docs("alice"), "the adds are searched at once");
        assertEquals(0, readerDocs(), "from the recent documents: the reader was not reopened");
        add("bob", "c");
        assertEquals(3, docs(null), "a read across keys sees every add too");
        assertEquals(0, readerDocs());
    }

    @Test
    void reachingTheLimitOfRecentDocumentsReopensTheReader() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < RefreshingSearchers.MAX_RECENT; i++) {
            ids.add("m" + i);
        }
        add("alice", ids.toArray(String[]::new));
        assertEquals(RefreshingSearchers.MAX_RECENT, docs("alice"));
        assertEquals(RefreshingSearchers.MAX_RECENT, readerDocs(), "the read reopened the reader");
        add("alice", "more");
        assertEquals(RefreshingSearchers.MAX_RECENT + 1, docs("alice"));
        assertEquals(RefreshingSearchers.MAX_RECENT, readerDocs(), "recent documents again after the reopen");
    }

    @Test
    void aReplacedDocumentIsSearchedOnceAndNew() throws Exception {
        add("alice", "a");
        docs("alice");
        forceReopen();
        assertEquals(1, readerDocs());
        writer.updateDocument(DocumentSchema.keyIdTerm("alice", "a"),
                DocumentSchema.toLucene(doc("a", "alice", 0, "replaced", null)));
        searchers.added(List.of(doc("a", "alice", 0, "replaced", null)));
        assertEquals(1, readerDocs(), "not reopened yet");
        assertEquals(1, docs("alice"), "the reader held the old one: the read reopened it, no duplicate");
        assertEquals(1, count("replaced"));
    }

    @Test
    void anIdAddedTwiceAmongTheRecentDocumentsIsSearchedOnceAndNew() throws Exception {
        add(List.of(doc("a", "alice", 0, "first", null), doc("b", "alice", 0, "other", null)));
        assertEquals(2, docs("alice"));
        add(List.of(doc("a", "alice", 0, "second", null)));
        assertEquals(0, readerDocs(), "still from the recent documents");
        assertEquals(2, docs("alice"), "the second add of a replaced the first");
        assertEquals(0, count("first"));
        assertEquals(1, count("second"));
        add(List.of(doc("a", "alice", 0, "third", null), doc("a", "alice", 0, "fourth", null)));
        assertEquals(2, docs("alice"), "twice in one batch: the later one is kept");
        assertEquals(1, count("fourth"));
        assertEquals(0, count("second") + count("third"));
    }

    @Test
    void aWriteThatIsNotAnAddMakesTheRecentDocumentsKeysStale() throws Exception {
        add("alice", "a");
        add("bob", "b");
        writer.deleteDocuments(DocumentSchema.keyIdTerm("bob", "b"));
        searchers.markStale("bob");
        assertEquals(0, readerDocs());
        assertEquals(0, docs("carol"), "carol wrote nothing: no reopen");
        assertEquals(0, readerDocs());
        assertEquals(1, docs("alice"), "alice's add is no longer recent: her read reopens the reader");
        assertEquals(1, readerDocs());
        assertEquals(0, docs("bob"));
    }

    @Test
    void anotherKeysWriteDoesNotReopenTheReaderOnceRecentDocumentsAreDropped() throws Exception {
        searchers.markStale("nobody"); // from now on, stale keys
        add("alice", "a");
        assertEquals(0, docs("bob"), "bob's read cannot see alice's write: no flush for it");
        assertEquals(1, docs(null), "a read across keys sees every write");
        searchers.markStale("dave");
        add("alice", "b");
        assertEquals(2, docs("alice"));
        searchers.markStale("dave");
        writer.addDocument(DocumentSchema.toLucene(doc("c", "alice", 0, "m", null)));
        searchers.markAllStale();
        assertEquals(0, docs("bob"), "bob has none");
        assertEquals(3, readerDocs(), "a write across keys reopens the reader for every key's read");
    }

    @Test
    void aFinishedMergeIsPickedUpOnceRecentDocumentsAreOld() throws Exception {
        searchers.markStale("x");
        add("alice", "a");
        writer.flush();
        add("alice", "b");
        docs("alice");
        assertEquals(2, readerSegments());
        writer.forceMerge(1);
        docs("alice");
        assertEquals(2, readerSegments(), "the merge alone does not reopen");
        searchers.lease("bob", true, false).close();
        assertEquals(1, readerSegments(), "a finished merge reopens the reader");

        add("alice", "c");
        searchers.lease("bob", true, false).close();
        assertEquals(1, readerSegments(), "recent documents delay the pickup");
        clock.addAndGet(RefreshingSearchers.MAX_RECENT_NANOS);
        searchers.lease("bob", false, false).close();
        assertEquals(3, readerDocs(), "once they are old enough the reader reopens");
    }

    @Test
    void oldRecentDocumentsMoveIntoTheReaderAtTheirKeysNextRead() throws Exception {
        add("alice", "a");
        clock.addAndGet(RefreshingSearchers.MAX_RECENT_NANOS);
        assertEquals(0, docs("bob"), "bob's read does not need alice's documents");
        assertEquals(0, readerDocs());
        assertEquals(1, docs("alice"));
        assertEquals(1, readerDocs(), "alice's read reopened the reader rather than search them aside");
        add("alice", "b");
        assertEquals(2, docs("alice"));
        assertEquals(1, readerDocs(), "a young recent document is searched beside the reader");
    }

    @Test
    void aDueFoldReopensTheReaderFirst() throws Exception {
        add("alice", "a");
        searchers.lease("alice", false, true).close();
        assertEquals(1, readerDocs(), "the fold must include the recent documents");
    }

    /**
     * Recent documents are stored without an HNSW graph, so a kNN read scans them however many
     * there are: 999 at a beam of 10 would otherwise be searched by graph, which finds nothing in
     * them. The scan gives each query's exact top 10.
     */
    @Test
    void recentDocumentsAreScannedForTheExactTopK() throws Exception {
        int n = RefreshingSearchers.MAX_RECENT - 1;
        assertFalse(SegmentScaledKnnQuery.searchesExactly(n, K), "a segment of them would be searched by graph");
        Random random = new Random(3);
        float[][] vectors = new float[n][];
        List<MemoryDocument> docs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            vectors[i] = unitVector(random, 32);
            docs.add(doc("" + i, "alice", 0, "m", vectors[i]));
        }
        add(docs);
        try (RefreshingSearchers.Lease lease = searchers.lease("alice", false, false)) {
            IndexReader reader = lease.searcher().getIndexReader();
            assertEquals(0, readerDocs(), "the documents are recent ones");
            assertTrue(reader.leaves().stream().allMatch(leaf -> RecentDocuments.isRecentSegment(leaf.reader())));
            for (int q = 0; q < 10; q++) {
                float[] query = unitVector(random, 32);
                TopDocs top = lease.searcher().search(
                        SegmentScaledKnnQuery.create(reader, DocumentSchema.VECTOR, query, K, K, null), K);
                List<String> found = new ArrayList<>();
                StoredFields fields = reader.storedFields();
                for (ScoreDoc hit : top.scoreDocs) {
                    found.add(fields.document(hit.doc).get(DocumentSchema.ID));
                }
                assertEquals(exactTop(vectors, query, K, i -> true), found, "query " + q);
            }
        }
        forceReopen();
        try (RefreshingSearchers.Lease lease = searchers.leaseWithoutRefresh()) {
            assertTrue(lease.searcher().getIndexReader().leaves().stream()
                    .noneMatch(leaf -> RecentDocuments.isRecentSegment(leaf.reader())),
                    "the index's own segments have graphs");
        }
    }

    private void add(String key, String... ids) throws Exception {
        List<MemoryDocument> docs = new ArrayList<>();
        for (String id : ids) {
            docs.add(doc(id, key, 0, "m", null));
        }
        add(docs);
    }

    private void add(List<MemoryDocument> docs) throws Exception {
        for (MemoryDocument doc : docs) {
            writer.updateDocument(DocumentSchema.keyIdTerm(doc.key(), doc.id()), DocumentSchema.toLucene(doc));
        }
        searchers.added(docs);
    }

    private void forceReopen() throws Exception {
        searchers.markAllStale();
        searchers.lease(null, false, false).close();
    }

    /** Documents of {@code key} (null: all) a read of it sees. */
    private int docs(String key) throws Exception {
        try (RefreshingSearchers.Lease lease = searchers.lease(key, false, false)) {
            return key == null
                    ? lease.searcher().getIndexReader().numDocs()
                    : lease.searcher().count(new TermQuery(new Term(DocumentSchema.KEY, key)));
        }
    }

    private int count(String memory) throws Exception {
        try (RefreshingSearchers.Lease lease = searchers.lease(null, false, false)) {
            return lease.searcher().count(new TermQuery(new Term(DocumentSchema.MEMORY, memory)));
        }
    }

    /** Documents in the reader itself, without the recent ones. */
    private int readerDocs() throws Exception {
        try (RefreshingSearchers.Lease lease = searchers.leaseWithoutRefresh()) {
            return lease.searcher().getIndexReader().numDocs();
        }
    }

    private int readerSegments() throws Exception {
        try (RefreshingSearchers.Lease lease = searchers.leaseWithoutRefresh()) {
            return lease.searcher().getIndexReader().leaves().size();
        }
    }
}
