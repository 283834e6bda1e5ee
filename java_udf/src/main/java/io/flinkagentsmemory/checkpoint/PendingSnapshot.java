package io.flinkagentsmemory.checkpoint;

import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.flinkagentsmemory.index.KeyGroupIndex;
import org.apache.flink.runtime.state.KeyedStateCheckpointOutputStream;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateUtil;
import org.apache.lucene.index.IndexCommit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One checkpoint of a subtask's long-term memory between its two parts. The synchronous part
 * (task thread) commits each key group's index, pins that commit so no later write or merge
 * deletes its files, and decides what each key group writes ({@link Part}). The asynchronous
 * part ({@link #asyncPart}, run by Flink's checkpoint thread before the subtask acknowledges)
 * uploads and copies the files, writes the raw keyed state, closes its stream, and unpins.
 * Lucene files are immutable, so reading them while the task goes on writing is safe.
 */
final class PendingSnapshot {

    private static final Logger LOG = LoggerFactory.getLogger(PendingSnapshot.class);

    /** One key group's share of the checkpoint, decided in the synchronous part. */
    interface Part {
        /** Uploads what the part needs and writes its blob (asynchronous part). */
        void write(DataOutputStream out) throws IOException, InterruptedException;

        /** Bytes the part puts into checkpoint storage (uploads and raw keyed state). */
        long bytes();

        /** Bytes of the index the part covers (what a full copy writes). */
        long indexBytes();

        /** Files the part uploads to the shared directory. */
        int uploadedFiles();
    }

    /** What an asynchronous part did, for metrics. */
    record Done(long checkpointId, long millis, boolean ok) {}

    private record Pin(KeyGroupIndex index, IndexCommit commit) {}

    private record KeyGroupPart(int keyGroup, Part part) {}

    private final long checkpointId;
    private final KeyedStateCheckpointOutputStream raw;
    private final List<KeyGroupPart> parts = new ArrayList<>();
    private final List<Pin> pins = new ArrayList<>();
    private final AtomicBoolean released = new AtomicBoolean();

    PendingSnapshot(long checkpointId, KeyedStateCheckpointOutputStream raw) {
        this.checkpointId = checkpointId;
        this.raw = raw;
    }

    long checkpointId() {
        return checkpointId;
    }

    /** Commits {@code index} and pins that commit until {@link #release}. */
    IndexCommit pin(KeyGroupIndex index) throws IOException {
        IndexCommit commit = index.acquireCommit();
        pins.add(new Pin(index, commit));
        return commit;
    }

    void add(int keyGroup, Part part) {
        parts.add(new KeyGroupPart(keyGroup, part));
    }

    long bytes() {
        return parts.stream().mapToLong(p -> p.part().bytes()).sum();
    }

    long indexBytes() {
        return parts.stream().mapToLong(p -> p.part().indexBytes()).sum();
    }

    long uploadedFiles() {
        return parts.stream().mapToLong(p -> p.part().uploadedFiles()).sum();
    }

    /**
     * The asynchronous part, to run in place of {@code closing} (the future that closes the raw
     * keyed state stream and yields its handle): writes every key group, then runs
     * {@code closing}. Unpins when it ends, fails or is cancelled; {@code done} hears of it.
     */
    RunnableFuture<SnapshotResult<KeyedStateHandle>> asyncPart(
            RunnableFuture<SnapshotResult<KeyedStateHandle>> closing, Consumer<Done> done) {
        return new AsyncPart(closing, done);
    }

    /** Unpins every commit (once; later calls do nothing). */
    void release() {
        if (!released.compareAndSet(false, true)) {
            return;
        }
        for (Pin pin : pins) {
            try {
                pin.index().releaseCommit(pin.commit());
            } catch (IOException | RuntimeException e) {
                // A closed index has no files left to protect; the next commit cleans up otherwise.
                LOG.debug("Could not unpin key group {} after checkpoint {}: {}",
                        pin.index().keyGroup(), checkpointId, e.toString());
            }
        }
    }

    private void writeAll() throws IOException, InterruptedException {
        // Not closed here: the closing future closes the stream and builds its handle.
        DataOutputStream out = new DataOutputStream(raw);
        for (KeyGroupPart p : parts) {
            raw.startNewKeyGroup(p.keyGroup());
            p.part().write(out);
        }
        out.flush();
    }

    private final class AsyncPart extends FutureTask<SnapshotResult<KeyedStateHandle>> {

        private final RunnableFuture<SnapshotResult<KeyedStateHandle>> closing;
        private final Consumer<Done> done;
        private volatile long start;

        AsyncPart(RunnableFuture<SnapshotResult<KeyedStateHandle>> closing, Consumer<Done> done) {
            super(() -> {
                writeAll();
                closing.run();
                try {
                    return closing.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            });
            this.closing = closing;
            this.done = done;
        }

        @Override
        public void run() {
            start = System.nanoTime();
            super.run();
        }

        @Override
        protected void done() {
            release();
            boolean ok = !isCancelled() && closing.isDone() && !closing.isCancelled();
            if (ok) {
                try {
                    get();
                } catch (InterruptedException | ExecutionException | RuntimeException e) {
                    ok = false;
                }
            }
            if (!ok) {
                try {
                    // Cancels the stream if it was never closed, else deletes what it wrote.
                    StateUtil.discardStateFuture(closing);
                } catch (Exception e) {
                    LOG.warn("Could not discard the raw keyed state of failed checkpoint {}: {}",
                            checkpointId, e.toString());
                }
            }
            long millis = start == 0 ? 0 : (System.nanoTime() - start) / 1_000_000;
            done.accept(new Done(checkpointId, millis, ok));
        }
    }
}
