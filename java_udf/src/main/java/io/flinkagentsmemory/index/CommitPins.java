package io.flinkagentsmemory.index;

import java.io.IOException;

import org.apache.lucene.index.IndexCommit;
import org.apache.lucene.index.IndexDeletionPolicy;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.KeepOnlyLastCommitDeletionPolicy;
import org.apache.lucene.index.SnapshotDeletionPolicy;

/**
 * Commits whose files stay on disk while a checkpoint copies them: the writer goes on writing
 * and merging meanwhile, and would otherwise delete the files of every commit but the last.
 */
final class CommitPins {

    private final SnapshotDeletionPolicy snapshots =
            new SnapshotDeletionPolicy(new KeepOnlyLastCommitDeletionPolicy());

    /** The deletion policy the index's writer must be configured with. */
    IndexDeletionPolicy deletionPolicy() {
        return snapshots;
    }

    /** Commits {@code writer} and pins that commit's files until {@link #release}. */
    IndexCommit pin(IndexWriter writer) throws IOException {
        writer.commit();
        return snapshots.snapshot();
    }

    /** Unpins {@code commit}; its files that no later commit uses are deleted now. */
    void release(IndexWriter writer, IndexCommit commit) throws IOException {
        snapshots.release(commit);
        writer.deleteUnusedFiles();
    }
}
