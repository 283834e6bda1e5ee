package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.KeepOnlyLastCommitDeletionPolicy;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;

/** Folds are asked for once the index is quiet, once per quiet period; time is a stepped clock. */
class FoldSchedulerTest {

    private static final long QUIET_MS = 1_000;
    private static final long MS = 1_000_000;

    private final AtomicLong clock = new AtomicLong(5 * MS);
    private final FoldScheduler folds = new FoldScheduler(QUIET_MS, clock::get);

    @Test
    void aFoldIsAskedOncePerQuietPeriod() throws Exception {
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory(); IndexWriter writer = writer(dir)) {
            clock.addAndGet((QUIET_MS - 1) * MS);
            assertFalse(folds.maybeFold(writer), "not yet quiet");
            clock.addAndGet(MS);
            assertTrue(folds.maybeFold(writer));
            clock.addAndGet(10 * QUIET_MS * MS);
            assertFalse(folds.maybeFold(writer), "asked already, and nothing was written since");
            folds.wrote();
            clock.addAndGet((QUIET_MS - 1) * MS);
            assertFalse(folds.maybeFold(writer), "a write restarts the quiet period");
            clock.addAndGet(MS);
            assertTrue(folds.maybeFold(writer));
        }
    }

    @Test
    void aQuietIndexIsFoldedIntoOneSegment() throws Exception {
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory(); IndexWriter writer = writer(dir)) {
            bigThenSmallSegments(writer);
            folds.awaitMerges(writer);
            assertEquals(4, segments(writer), "fewer segments than a tier: tiered merging waits");
            assertFalse(folds.takeFinishedMerge());

            clock.addAndGet(QUIET_MS * MS);
            folds.awaitMerges(writer);
            assertEquals(1, segments(writer));
            assertTrue(folds.takeFinishedMerge());
            assertEquals(2030, writer.getDocStats().numDocs);
        }
    }

    @Test
    void aNegativeQuietPeriodIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new FoldScheduler(-1));
        assertEquals("quiet period must not be negative, got -1", e.getMessage());
    }

    private IndexWriter writer(ByteBuffersDirectory dir) throws Exception {
        return new IndexWriter(dir, folds.configure(new IndexWriterConfig(new StandardAnalyzer()),
                new KeepOnlyLastCommitDeletionPolicy()));
    }

    /** One segment of 2,000 documents, then three of 10, as a job's runs flush them. */
    private void bigThenSmallSegments(IndexWriter writer) throws Exception {
        Random random = new Random(3);
        for (int i = 0; i < 2030; i++) {
            writer.addDocument(DocumentSchema.toLucene(doc("d" + i, "alice", 0, "m", unitVector(random, 8))));
            if (i == 1999 || (i > 2000 && (i - 1999) % 10 == 0)) {
                writer.flush();
                folds.wrote();
            }
        }
        writer.flush();
    }

    private static int segments(IndexWriter writer) throws Exception {
        try (DirectoryReader reader = DirectoryReader.open(writer)) {
            return reader.leaves().size();
        }
    }
}
