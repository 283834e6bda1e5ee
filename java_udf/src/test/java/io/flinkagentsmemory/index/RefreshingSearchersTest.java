package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;

/** Readers reopen for a read of a key that wrote, a read across keys after any write, or a finished merge; only then. */
class RefreshingSearchersTest {

    @Test
    void aKeysWritesAreSearchedByItsNextRead() throws Exception {
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
                IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(new StandardAnalyzer()));
                RefreshingSearchers searchers = new RefreshingSearchers(writer)) {
            add(writer, "a");
            searchers.refresh("alice", false);
            assertEquals(0, numDocs(searchers), "no refresh without a write marked");
            searchers.markStale("alice");
            searchers.refresh("alice", false);
            assertEquals(1, numDocs(searchers));
            add(writer, "b");
            searchers.refresh("alice", false);
            assertEquals(1, numDocs(searchers), "stale is cleared by a refresh");
        }
    }

    @Test
    void anotherKeysWriteDoesNotReopenTheReader() throws Exception {
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
                IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(new StandardAnalyzer()));
                RefreshingSearchers searchers = new RefreshingSearchers(writer)) {
            add(writer, "a");
            searchers.markStale("alice");
            searchers.refresh("bob", false);
            assertEquals(0, numDocs(searchers), "bob's read cannot see alice's write: no flush for it");
            searchers.refresh(null, false);
            assertEquals(1, numDocs(searchers), "a read across keys sees every write");
            add(writer, "b");
            searchers.markStale("alice");
            searchers.refresh("alice", false);
            assertEquals(2, numDocs(searchers));
            add(writer, "c");
            searchers.markAllStale();
            searchers.refresh("bob", false);
            assertEquals(3, numDocs(searchers), "a write across keys reopens for every key");
        }
    }

    @Test
    void aFinishedMergeIsSearchedWithoutAWrite() throws Exception {
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
                IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(new StandardAnalyzer()));
                RefreshingSearchers searchers = new RefreshingSearchers(writer)) {
            add(writer, "a");
            writer.flush();
            add(writer, "b");
            searchers.markStale("alice");
            searchers.refresh("alice", false);
            assertEquals(2, segments(searchers));
            writer.forceMerge(1);
            searchers.refresh("alice", false);
            assertEquals(2, segments(searchers), "the merge alone does not reopen");
            searchers.refresh("bob", true);
            assertEquals(1, segments(searchers));
            assertEquals(2, numDocs(searchers));
        }
    }

    private static void add(IndexWriter writer, String id) throws Exception {
        writer.addDocument(DocumentSchema.toLucene(doc(id, "alice", 0, "m", null)));
    }

    private static int numDocs(RefreshingSearchers searchers) throws Exception {
        IndexSearcher s = searchers.acquire();
        try {
            return s.getIndexReader().numDocs();
        } finally {
            searchers.release(s);
        }
    }

    private static int segments(RefreshingSearchers searchers) throws Exception {
        IndexSearcher s = searchers.acquire();
        try {
            return s.getIndexReader().leaves().size();
        } finally {
            searchers.release(s);
        }
    }
}
