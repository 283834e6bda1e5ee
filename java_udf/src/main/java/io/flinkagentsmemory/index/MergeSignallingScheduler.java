package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.MergePolicy.OneMerge;

/**
 * Lucene's background merge scheduler that remembers that a merge finished, so the index
 * refreshes its reader and searches the merged segment. A near-real-time reader otherwise keeps
 * the segments it was opened on until the next write: a quiet index would be searched segment
 * by segment long after its merges are done.
 */
final class MergeSignallingScheduler extends ConcurrentMergeScheduler {

    private final AtomicBoolean finished = new AtomicBoolean();

    @Override
    protected void doMerge(MergeSource mergeSource, OneMerge merge) throws IOException {
        super.doMerge(mergeSource, merge);
        finished.set(true);
    }

    /** Whether a merge finished since the last call (the merged segment is in the writer then). */
    boolean takeFinished() {
        return finished.getAndSet(false);
    }
}
