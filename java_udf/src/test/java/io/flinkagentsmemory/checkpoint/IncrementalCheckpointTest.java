package io.flinkagentsmemory.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.stream.Stream;

import io.flinkagentsmemory.index.MemoryDocument;
import io.flinkagentsmemory.index.MetadataFilter;
import io.flinkagentsmemory.index.SubtaskMemoryIndexes;
import io.flinkagentsmemory.index.TestDocs;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StatePartitionStreamProvider;
import org.apache.flink.runtime.state.StateSnapshotContextSynchronousImpl;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStorageLocation;
import org.apache.lucene.index.DirectoryReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental checkpoints through the hooks, Flink's raw keyed state streams and a real
 * file-system checkpoint location (shared directory on local disk): bytes written, restore,
 * lifetime of the shared files over many checkpoints with failures, NO_CLAIM, savepoints and
 * damaged uploads.
 */
class IncrementalCheckpointTest {

    /** Four key groups; the long run uses one (each checkpoint commits, and commits fsync). */
    private KeyGroupRange range = KeyGroupRange.of(0, 3);
    private static final int DIM = 16;

    @TempDir
    Path dir;

    private final Random random = new Random(7);
    private int next;
    private int generation;

    /** One subtask attempt of job {@code job}: its indexes and hooks. */
    private final class Attempt {
        final String job;
        final SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(dir.resolve("local-" + ++generation));
        final LongTermMemoryCheckpointHooks hooks;

        Attempt(String job, int retained, boolean claim) {
            this.job = job;
            this.hooks = new LongTermMemoryCheckpointHooks(() -> indexes, "op", retained, claim);
        }

        void add(int n) throws IOException {
            for (int i = 0; i < n; i++) {
                int kg = range.getStartKeyGroup() + next % range.getNumberOfKeyGroups();
                String id = "d" + next++;
                indexes.forKeyGroup(kg).add(new MemoryDocument(id, "key" + kg, kg, "memory " + id,
                        TestDocs.unitVector(random, DIM), "{}", null, null, null, MemoryDocument.NEVER));
            }
        }

        KeyGroupsStateHandle checkpoint(long id, boolean savepoint) throws Exception {
            RunnableFuture<SnapshotResult<KeyedStateHandle>> future = synchronousPart(id, savepoint);
            future.run();
            return (KeyGroupsStateHandle) future.get().getJobManagerOwnedSnapshot();
        }

        /** What the task thread does; the returned future is Flink's asynchronous part. */
        RunnableFuture<SnapshotResult<KeyedStateHandle>> synchronousPart(long id, boolean savepoint)
                throws Exception {
            Path jobDir = dir.resolve("chk").resolve(job);
            FsCheckpointStorageLocation location = new FsCheckpointStorageLocation(
                    FileSystem.getLocalFileSystem(),
                    new org.apache.flink.core.fs.Path(jobDir.resolve("chk-" + id).toUri()),
                    new org.apache.flink.core.fs.Path(jobDir.resolve("shared").toUri()),
                    new org.apache.flink.core.fs.Path(jobDir.resolve("taskowned").toUri()),
                    CheckpointStorageLocationReference.getDefault(), 1024, 4096);
            hooks.beginSnapshot(id, savepoint, location);
            StateSnapshotContextSynchronousImpl ctx = new StateSnapshotContextSynchronousImpl(
                    id, id, location, range, new CloseableRegistry());
            hooks.snapshotState(ctx);
            return hooks.asyncPart(id, ctx.getKeyedStateStreamFuture());
        }

        /** Documents of every key group as "key|memory". */
        Set<String> contents() throws IOException {
            Set<String> out = new HashSet<>();
            for (int kg : range) {
                if (indexes.hasKeyGroup(kg)) {
                    for (MemoryDocument d : indexes.forKeyGroup(kg).getAll("key" + kg, MetadataFilter.none(), 100_000, 0)) {
                        out.add(d.key() + "|" + d.memory());
                    }
                }
            }
            return out;
        }

        void close() throws IOException {
            indexes.closeAll();
        }
    }

    private Attempt restore(String job, int retained, boolean claim, long checkpointId, KeyGroupsStateHandle handle)
            throws Exception {
        Attempt a = new Attempt(job, retained, claim);
        a.hooks.initializeState(new RawKeyedInputs(checkpointId, inputs(handle)));
        return a;
    }

    @Test
    void onePercentMoreMemoriesWriteUnderATenthOfTheFirstCheckpoint() throws Exception {
        Attempt a = new Attempt("job", 1, false);
        a.add(4000);
        a.checkpoint(1, false);
        a.hooks.notifyCheckpointComplete(1);
        long first = a.hooks.lastSnapshotBytes();
        assertTrue(first > 100_000, "first checkpoint holds the index: " + first);
        a.add(40);
        a.checkpoint(2, false);
        long second = a.hooks.lastSnapshotBytes();
        assertTrue(second < first / 10, "1% more memories wrote " + second + " of " + first + " bytes");
        assertTrue(a.hooks.lastIndexBytes() > first * 0.9, "the index is still whole: " + a.hooks.lastIndexBytes());
        Set<String> expected = a.contents();
        KeyGroupsStateHandle h2 = a.checkpoint(3, false);
        assertEquals(0, a.hooks.lastUploadedFiles(), "nothing changed, nothing uploaded");
        a.close();

        Attempt b = restore("job", 1, false, 3, h2);
        assertEquals(expected, b.contents());
        assertEquals(4, b.hooks.lastRestoredKeyGroups());
        b.close();
    }

    @Test
    void theTaskThreadOnlyPinsTheCommitAndTheAsynchronousPartUploadsIt() throws Exception {
        range = KeyGroupRange.of(0, 0);
        Attempt a = new Attempt("job", 1, false);
        a.add(1000);
        a.checkpoint(1, false);
        a.hooks.notifyCheckpointComplete(1);
        Set<String> afterFirst = names(sharedFiles("job"));
        a.add(300);
        Set<String> expected = a.contents();
        RunnableFuture<SnapshotResult<KeyedStateHandle>> async = a.synchronousPart(2, false);
        assertEquals(afterFirst, names(sharedFiles("job")), "the synchronous part uploads nothing");
        assertTrue(a.hooks.lastUploadedFiles() > 0, "checkpoint 2 has new files to upload");

        // The task goes on: more memories, merges, a newer commit. The pinned commit stays.
        a.add(3000);
        a.indexes.awaitMerges();
        a.indexes.forKeyGroup(0).commit();
        assertEquals(2, DirectoryReader.listCommits(a.indexes.forKeyGroup(0).directory()).size(),
                "checkpoint 2's commit is pinned next to the newest one");

        async.run();
        KeyGroupsStateHandle h2 = (KeyGroupsStateHandle) async.get().getJobManagerOwnedSnapshot();
        assertTrue(names(sharedFiles("job")).containsAll(names(currentLocations(h2))), "uploaded before the handle");
        a.indexes.forKeyGroup(0).commit();
        assertEquals(1, DirectoryReader.listCommits(a.indexes.forKeyGroup(0).directory()).size(),
                "the asynchronous part unpinned its commit");
        a.hooks.notifyCheckpointComplete(2);
        a.close();

        Attempt b = restore("job", 1, false, 2, h2);
        assertEquals(expected, b.contents(), "the checkpoint holds what was there at its synchronous part");
        b.close();
    }

    @Test
    void aCancelledAsynchronousPartUnpinsAndUploadsNothing() throws Exception {
        range = KeyGroupRange.of(0, 0);
        Attempt a = new Attempt("job", 1, false);
        a.add(500);
        a.checkpoint(1, false);
        a.hooks.notifyCheckpointComplete(1);
        Set<String> afterFirst = names(sharedFiles("job"));
        a.add(100);
        RunnableFuture<SnapshotResult<KeyedStateHandle>> async = a.synchronousPart(2, false);
        assertTrue(async.cancel(true));
        async.run(); // a cancelled future runs nothing
        assertThrows(CancellationException.class, async::get);
        a.indexes.forKeyGroup(0).commit();
        assertEquals(1, DirectoryReader.listCommits(a.indexes.forKeyGroup(0).directory()).size(),
                "cancelling unpinned the commit");
        assertEquals(afterFirst, names(sharedFiles("job")));
        a.hooks.notifyCheckpointAborted(2);

        // Aborted before its asynchronous part ran: that part refuses to upload files nobody needs.
        RunnableFuture<SnapshotResult<KeyedStateHandle>> late = a.synchronousPart(3, false);
        a.hooks.notifyCheckpointAborted(3);
        late.run();
        ExecutionException e = assertThrows(ExecutionException.class, late::get);
        assertTrue(e.getCause().getMessage().contains("no longer referenced"), e.getCause().getMessage());
        assertEquals(afterFirst, names(sharedFiles("job")));

        Set<String> expected = a.contents();
        KeyGroupsStateHandle h4 = a.checkpoint(4, false);
        a.hooks.notifyCheckpointComplete(4);
        a.close();
        Attempt b = restore("job", 1, false, 4, h4);
        assertEquals(expected, b.contents());
        b.close();
    }

    @Test
    void checkpointsInFlightTogetherShareTheirUploads() throws Exception {
        range = KeyGroupRange.of(0, 0);
        Attempt a = new Attempt("job", 1, false);
        a.add(800);
        a.checkpoint(1, false);
        a.hooks.notifyCheckpointComplete(1);
        a.add(200);
        RunnableFuture<SnapshotResult<KeyedStateHandle>> second = a.synchronousPart(2, false);
        long planned = a.hooks.lastUploadedFiles();
        RunnableFuture<SnapshotResult<KeyedStateHandle>> third = a.synchronousPart(3, false);
        assertTrue(planned > 0);
        assertEquals(0, a.hooks.lastUploadedFiles(), "checkpoint 3 reuses what checkpoint 2 uploads");
        Set<String> expected = a.contents();

        // Checkpoint 3's asynchronous part runs first: it uploads checkpoint 2's new files itself.
        third.run();
        KeyGroupsStateHandle h3 = (KeyGroupsStateHandle) third.get().getJobManagerOwnedSnapshot();
        a.hooks.notifyCheckpointAborted(2);
        assertTrue(names(sharedFiles("job")).containsAll(names(currentLocations(h3))),
                "aborting checkpoint 2 keeps what checkpoint 3 references");
        second.run(); // late, after its abort: its files are stored, it changes nothing
        assertTrue(second.get().getJobManagerOwnedSnapshot() != null);
        a.hooks.notifyCheckpointComplete(3);
        a.close();
        assertEquals(names(currentLocations(h3)), names(sharedFiles("job")), "only checkpoint 3's files are left");
        Attempt b = restore("job", 1, false, 3, h3);
        assertEquals(expected, b.contents());
        b.close();
    }

    @Test
    void twoHundredCheckpointsWithFailuresLeaveOnlyReferencedFiles() throws Exception {
        range = KeyGroupRange.of(0, 0);
        int retained = 2;
        Attempt a = new Attempt("job", retained, false);
        List<KeyGroupsStateHandle> completed = new ArrayList<>();
        List<Long> completedIds = new ArrayList<>();
        Set<String> expected = null;
        int failures = 0;
        for (long c = 1; c <= 200; c++) {
            a.add(1 + random.nextInt(30));
            KeyGroupsStateHandle h = a.checkpoint(c, false);
            if (c % 60 == 30) {
                // A failure after this checkpoint's uploads, before it completed: its files
                // are orphans the next attempt's first checkpoint must sweep.
                a.close();
                failures++;
                long restoreId = completedIds.get(completedIds.size() - 1);
                a = restore("job", retained, false, restoreId, completed.get(completed.size() - 1));
                assertEquals(expected, a.contents(), "restored after failure " + failures);
                continue;
            }
            if (random.nextInt(10) == 0) {
                a.hooks.notifyCheckpointAborted(c);
                continue;
            }
            completed.add(h);
            completedIds.add(c);
            a.hooks.notifyCheckpointComplete(c);
            expected = a.contents();
        }
        assertEquals(3, failures);
        Set<String> referenced = new HashSet<>();
        for (int i = completed.size() - retained; i < completed.size(); i++) {
            referenced.addAll(names(currentLocations(completed.get(i))));
        }
        Set<String> onDisk = names(sharedFiles("job"));
        Set<String> missing = new HashSet<>(referenced);
        missing.removeAll(onDisk);
        Set<String> unreferenced = new HashSet<>(onDisk);
        unreferenced.removeAll(referenced);
        assertEquals(Set.of(), missing, "files the retained checkpoints restore from");
        assertEquals(Set.of(), unreferenced, "files no retained checkpoint references");
        // The oldest retained checkpoint still restores, with its own contents.
        a.close();
        Attempt old = restore("job", retained, false, completedIds.get(completedIds.size() - retained),
                completed.get(completed.size() - retained));
        assertFalse(old.contents().isEmpty());
        old.close();
    }

    @Test
    void noClaimRestoreNeverDeletesTheOtherJobsFilesAndCopiesOnItsFirstCheckpoint() throws Exception {
        Attempt a = new Attempt("old-job", 1, false);
        a.add(500);
        KeyGroupsStateHandle h = a.checkpoint(1, false);
        a.hooks.notifyCheckpointComplete(1);
        long full = a.hooks.lastSnapshotBytes();
        a.close();
        Set<String> oldFiles = names(sharedFiles("old-job"));

        Attempt b = restore("new-job", 1, false, 1, h);
        b.add(5);
        b.checkpoint(2, false);
        assertTrue(b.hooks.lastSnapshotBytes() >= full, "first checkpoint of the new job copies every file");
        for (long c = 2; c <= 6; c++) {
            if (c > 2) {
                b.add(100);
                b.checkpoint(c, false);
            }
            b.hooks.notifyCheckpointComplete(c);
        }
        assertEquals(oldFiles, names(sharedFiles("old-job")), "NO_CLAIM: the old job's files stay");
        b.close();
    }

    @Test
    void claimRestoreTakesTheFilesOver() throws Exception {
        Attempt a = new Attempt("old-job", 1, false);
        a.add(2000);
        KeyGroupsStateHandle h = a.checkpoint(1, false);
        a.hooks.notifyCheckpointComplete(1);
        long full = a.hooks.lastSnapshotBytes();
        a.close();
        Attempt b = restore("new-job", 1, true, 1, h);
        b.add(8);
        b.checkpoint(2, false);
        assertTrue(b.hooks.lastSnapshotBytes() < full / 2, "claimed files are reused: "
                + b.hooks.lastSnapshotBytes() + " of " + full);
        b.hooks.notifyCheckpointComplete(2);
        b.add(3000); // grows and merges: some claimed files drop out of the index
        b.indexes.awaitMerges();
        KeyGroupsStateHandle h3 = b.checkpoint(3, false);
        b.hooks.notifyCheckpointComplete(3);
        b.close();
        Set<String> left = names(sharedFiles("old-job"));
        assertTrue(names(currentLocations(h3)).containsAll(left), "claimed files go once nothing retained needs them");
        assertTrue(left.size() < names(locations(h)).size(), "some claimed file was deleted");
    }

    @Test
    void savepointsStandAloneWithoutTheSharedDirectory() throws Exception {
        Attempt a = new Attempt("job", 1, false);
        a.add(300);
        a.checkpoint(1, false);
        a.hooks.notifyCheckpointComplete(1);
        KeyGroupsStateHandle savepoint = a.checkpoint(2, true);
        a.hooks.notifyCheckpointComplete(2);
        Set<String> expected = a.contents();
        a.close();
        assertTrue(locations(savepoint).isEmpty(), "a savepoint names no shared file");
        assertFalse(sharedFiles("job").isEmpty(), "the checkpoint's files are kept: a savepoint does not subsume it");
        io.flinkagentsmemory.index.LocalFiles.deleteRecursively(dir.resolve("chk").resolve("job").resolve("shared"));
        Attempt b = restore("moved", 1, false, 2, savepoint);
        assertEquals(expected, b.contents());
        b.close();
    }

    @Test
    void anUploadCutShortIsSweptAndADamagedReferencedFileIsAClearError() throws Exception {
        Attempt a = new Attempt("job", 1, false);
        a.add(400);
        KeyGroupsStateHandle h1 = a.checkpoint(1, false);
        a.hooks.notifyCheckpointComplete(1);
        a.add(50);
        a.checkpoint(2, false); // uploads, then the process dies (kill -9) before it completes
        a.close();
        Path partial = sharedFiles("job").get(0).resolveSibling("_99.cfs.1234.00000000deadbeef");
        Files.write(partial, new byte[100]); // an upload cut short
        Set<String> beforeRestore = names(sharedFiles("job"));

        Attempt b = restore("job", 1, false, 1, h1);
        b.checkpoint(3, false);
        b.hooks.notifyCheckpointComplete(3);
        Set<String> after = names(sharedFiles("job"));
        assertFalse(after.contains(partial.getFileName().toString()));
        assertTrue(after.size() < beforeRestore.size(), "checkpoint 2's uploads were swept");
        assertEquals(names(currentLocations(h1)), after, "checkpoint 3 holds what checkpoint 1 held");
        b.close();

        // A referenced file damaged in storage: restore names it, never opens a broken index.
        Path victim = Path.of(java.net.URI.create(currentLocations(h1).get(0)));
        try (RandomAccessFile f = new RandomAccessFile(victim.toFile(), "rw")) {
            f.seek(f.length() / 2);
            f.write(f.read() ^ 0xFF);
        }
        IOException e = assertThrows(IOException.class, () -> restore("job", 1, false, 1, h1));
        assertTrue(e.getMessage().contains("truncated or corrupt") && e.getMessage().contains(victim.getFileName().toString()),
                e.getMessage());
        Files.delete(victim);
        e = assertThrows(IOException.class, () -> restore("job", 1, false, 1, h1));
        assertTrue(e.getMessage().contains(victim.getFileName().toString()), e.getMessage());
    }

    // ---- helpers --------------------------------------------------------------------------

    private List<Path> sharedFiles(String job) throws IOException {
        Path root = dir.resolve("chk").resolve(job).resolve("shared");
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).toList();
        }
    }

    private static Set<String> names(Iterable<?> paths) {
        Set<String> out = new HashSet<>();
        for (Object p : paths) {
            String s = p.toString();
            out.add(s.substring(s.lastIndexOf('/') + 1));
        }
        return out;
    }

    /** Every shared location the handle's manifests name (current and retained files). */
    private static List<String> locations(KeyGroupsStateHandle handle) throws IOException {
        return locations(handle, false);
    }

    /** The shared locations a restore from the handle reads. */
    private static List<String> currentLocations(KeyGroupsStateHandle handle) throws IOException {
        return locations(handle, true);
    }

    private static List<String> locations(KeyGroupsStateHandle handle, boolean currentOnly) throws IOException {
        List<String> out = new ArrayList<>();
        for (int kg : handle.getKeyGroupRange()) {
            try (FSDataInputStream in = handle.openInputStream()) {
                in.seek(handle.getOffsetForKeyGroup(kg));
                DataInputStream data = new DataInputStream(in);
                if (data.readInt() != KeyGroupIndexSnapshotter.INCREMENTAL_VERSION) {
                    continue;
                }
                KeyGroupManifest m = KeyGroupManifest.read(kg, data);
                m.current().forEach(f -> out.add(f.location()));
                if (!currentOnly) {
                    m.retained().forEach(f -> out.add(f.location()));
                }
            }
        }
        return out;
    }

    private static List<KeyGroupStatePartitionStreamProvider> inputs(KeyGroupsStateHandle handle) throws IOException {
        List<KeyGroupStatePartitionStreamProvider> inputs = new ArrayList<>();
        for (int kg : handle.getKeyGroupRange()) {
            FSDataInputStream in = handle.openInputStream();
            in.seek(handle.getOffsetForKeyGroup(kg));
            inputs.add(new KeyGroupStatePartitionStreamProvider(in, kg));
        }
        return inputs;
    }

    private record RawKeyedInputs(Long restoredCheckpointId, List<KeyGroupStatePartitionStreamProvider> inputs)
            implements StateInitializationContext {
        @Override
        public Iterable<StatePartitionStreamProvider> getRawOperatorStateInputs() {
            return List.of();
        }

        @Override
        public Iterable<KeyGroupStatePartitionStreamProvider> getRawKeyedStateInputs() {
            return inputs;
        }

        @Override
        public OptionalLong getRestoredCheckpointId() {
            return restoredCheckpointId == null ? OptionalLong.empty() : OptionalLong.of(restoredCheckpointId);
        }

        @Override
        public OperatorStateStore getOperatorStateStore() {
            throw new UnsupportedOperationException();
        }

        @Override
        public KeyedStateStore getKeyedStateStore() {
            throw new UnsupportedOperationException();
        }
    }
}
