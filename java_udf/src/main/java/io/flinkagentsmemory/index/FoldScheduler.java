package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.function.LongSupplier;

import org.apache.lucene.index.IndexDeletionPolicy;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;

/**
 * When an index's segments are merged: Lucene's tiered merges in the background while it is
 * written, and one fold of its segments into one once it has had no write for the quiet period
 * (asked for at a read, at most once per quiet period; a write cancels a fold not yet started).
 * See {@link FoldingMergePolicy} for why a kNN index wants one segment, and {@link MergeBudget}
 * for why merges may rewrite only so much of what checkpoints have uploaded.
 */
final class FoldScheduler {

    private final MergeBudget budget = new MergeBudget();
    private final FoldingMergePolicy merges = FoldingMergePolicy.withTieredDefaults(budget);
    private final MergeSignallingScheduler mergeScheduler = new MergeSignallingScheduler();
    private final long quietNanos;
    private final LongSupplier nanoClock;
    /** Time of the last write; a fold is due once it is {@link #quietNanos} old, if still armed. */
    private long lastWriteNanos;
    private boolean foldArmed = true;

    FoldScheduler(long quietMillis) {
        this(quietMillis, System::nanoTime);
    }

    /** As above, reading time from {@code nanoClock} (tests step it instead of waiting). */
    FoldScheduler(long quietMillis, LongSupplier nanoClock) {
        if (quietMillis < 0) {
            throw new IllegalArgumentException("quiet period must not be negative, got " + quietMillis);
        }
        this.quietNanos = quietMillis * 1_000_000L;
        this.nanoClock = nanoClock;
        this.lastWriteNanos = nanoClock.getAsLong();
    }

    /**
     * Sets the merge policy and scheduler this class steers on the index's writer config, and
     * {@code deletionPolicy}, through which the merge budget learns what each commit holds.
     */
    IndexWriterConfig configure(IndexWriterConfig config, IndexDeletionPolicy deletionPolicy) {
        return config.setMergePolicy(merges).setMergeScheduler(mergeScheduler)
                .setIndexDeletionPolicy(budget.tracking(deletionPolicy));
    }

    /** After every write: the index is not quiet, so no fold under writes. */
    void wrote() {
        lastWriteNanos = nanoClock.getAsLong();
        foldArmed = true;
        merges.cancelFold();
    }

    /** Whether a merge finished since the last call (the reader should be refreshed then). */
    boolean takeFinishedMerge() {
        return mergeScheduler.takeFinished();
    }

    /** Whether the next {@link #maybeFold} asks for a fold (the index is quiet). */
    boolean foldDue() {
        return foldArmed && nanoClock.getAsLong() - lastWriteNanos >= quietNanos;
    }

    /**
     * Asks for the fold of a quiet index (once per quiet period); the merge runs in the
     * background. True if it asked.
     */
    boolean maybeFold(IndexWriter writer) throws IOException {
        if (!foldDue()) {
            return false;
        }
        foldArmed = false;
        merges.requestFold();
        writer.maybeMerge();
        return true;
    }

    /** Blocks until no merge of {@code writer} is running or pending, the fold of a quiet index included. */
    void awaitMerges(IndexWriter writer) throws IOException {
        if (!maybeFold(writer)) {
            writer.maybeMerge();
        }
        while (true) {
            mergeScheduler.sync();
            if (!writer.hasPendingMerges() && writer.getMergingSegments().isEmpty()) {
                break;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for merges", e);
            }
        }
    }
}
