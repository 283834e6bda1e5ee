package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import org.apache.lucene.index.CorruptIndexException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Discarding a subtask's local indexes: the end of an attempt, failed or not. */
class SubtaskMemoryIndexesTest {

    @TempDir
    Path dir;

    private final Random random = new Random(3);

    @Test
    void discardRollsBackWithoutCommitting() throws Exception {
        Path path = dir.resolve("kg-5");
        Files.createDirectories(path);
        KeyGroupIndex index = KeyGroupIndex.open(path, 5, 8);
        index.add(doc("kept", "alice", 5, "committed", unitVector(random, 4)));
        index.commit();
        index.add(doc("dropped", "alice", 5, "buffered only", unitVector(random, 4)));
        index.discard();

        KeyGroupIndex reopened = KeyGroupIndex.open(path, 5, 8);
        try {
            assertNotNull(reopened.get("alice", "kept", 0));
            assertNull(reopened.get("alice", "dropped", 0), "discard committed the buffered add");
        } finally {
            reopened.close();
        }
    }

    @Test
    void discardDeletesTheBaseDirectoryWithEveryOpenIndex() throws Exception {
        Path base = dir.resolve("0-1");
        SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(base);
        indexes.forKeyGroup(1).add(doc("a", "alice", 1, "tea", unitVector(random, 4)));
        indexes.forKeyGroup(2).add(doc("b", "bob", 2, "jazz", unitVector(random, 4)));
        indexes.commitAll();
        assertTrue(Files.isDirectory(indexes.directoryFor(2)));

        indexes.discard();

        assertFalse(Files.exists(base));
        assertEquals(0, indexes.openKeyGroups().size());
        assertFalse(indexes.hasKeyGroup(1));
    }

    @Test
    void anIndexClosedByAFailedMergeNamesThatFailure() throws Exception {
        // Lucene's merge thread rethrows the merge's failure and the JVM would print its whole
        // stack trace into a passing run: the test takes it instead, and checks what it is.
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
        try {
            closeAnIndexByAFailedMerge();
        } finally {
            joinMergeThreads(); // they may still be ending when the index says it is closed
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
        for (Throwable e : uncaught) {
            assertTrue(causedByCorruption(e), "a merge thread died of something else: " + e);
        }
    }

    private void closeAnIndexByAFailedMerge() throws Exception {
        SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(dir.resolve("0-0"), 8, 0);
        KeyGroupIndex index = indexes.forKeyGroup(7);
        for (int i = 0; i < 3; i++) {
            index.add(doc("m" + i, "alice", 7, "memory " + i, unitVector(random, 4)));
            index.commit();
        }
        // The segments a merge reads turn to zeros under the writer, as a broken disk would
        // leave them (same length: the files are memory-mapped).
        try (Stream<Path> files = Files.list(indexes.directoryFor(7))) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("_")).toList()) {
                try (FileChannel channel = FileChannel.open(f, StandardOpenOption.WRITE)) {
                    channel.write(ByteBuffer.allocate((int) channel.size()), 0);
                }
            }
        }
        try {
            index.awaitMerges(); // folds the quiet index: the merge reads the zeros and fails
        } catch (IOException | RuntimeException expected) {
            // the merge's own failure, seen by this call or not
        }
        IOException e = assertThrows(IOException.class, () -> indexes.forKeyGroup(7));
        assertTrue(e.getMessage().contains("key group 7 was closed by an earlier failure"), e.getMessage());
        assertNotNull(e.getCause());
        indexes.discard();
    }

    private static boolean causedByCorruption(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CorruptIndexException) {
                return true;
            }
        }
        return false;
    }

    private static void joinMergeThreads() throws InterruptedException {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("Lucene Merge Thread")) {
                t.join(10_000);
            }
        }
    }
}
