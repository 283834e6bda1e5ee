package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.Set;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexCommit;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;

/** A pinned commit's files survive later commits and merges until released. */
class CommitPinsTest {

    @Test
    void aPinnedCommitOutlivesLaterCommitsAndMerges() throws Exception {
        CommitPins pins = new CommitPins();
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
                IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(new StandardAnalyzer())
                        .setIndexDeletionPolicy(pins.deletionPolicy()))) {
            add(writer, "a");
            IndexCommit pinned = pins.pin(writer);
            Collection<String> pinnedFiles = pinned.getFileNames();

            add(writer, "b");
            writer.commit();
            Collection<String> unpinnedFiles = DirectoryReader.listCommits(dir).get(1).getFileNames();
            add(writer, "c");
            writer.forceMerge(1);
            writer.commit();

            Set<String> onDisk = Set.of(dir.listAll());
            assertTrue(onDisk.containsAll(pinnedFiles), "pinned files deleted: " + pinnedFiles + " on disk " + onDisk);
            assertFalse(onDisk.containsAll(unpinnedFiles), "an unpinned older commit is deleted");
            try (DirectoryReader asPinned = DirectoryReader.open(pinned)) {
                assertEquals(1, asPinned.numDocs());
            }

            pins.release(writer, pinned);
            Set<String> afterRelease = Set.of(dir.listAll());
            assertFalse(afterRelease.containsAll(pinnedFiles), "released files are deleted");
            try (DirectoryReader latest = DirectoryReader.open(dir)) {
                assertEquals(3, latest.numDocs());
            }
        }
    }

    private static void add(IndexWriter writer, String id) throws Exception {
        writer.addDocument(DocumentSchema.toLucene(doc(id, "alice", 0, "m", null)));
    }
}
