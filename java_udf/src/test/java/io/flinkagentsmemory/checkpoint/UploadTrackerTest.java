package io.flinkagentsmemory.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Uploads shared by checkpoints in flight, with real files: once each, retried, never orphaned. */
class UploadTrackerTest {

    @TempDir
    Path dir;

    private final UploadTracker tracker = new UploadTracker();
    private final AtomicInteger uploads = new AtomicInteger();

    private UploadTracker.Uploader writes(Path file) {
        return () -> {
            uploads.incrementAndGet();
            Files.write(file, new byte[] {1, 2, 3});
        };
    }

    @Test
    void aFileIsUploadedOnceForEveryCheckpointThatNeedsIt() throws Exception {
        Path file = dir.resolve("a");
        tracker.expect(file.toUri().toString());
        tracker.ensure(file.toUri().toString(), writes(file));
        tracker.expect(file.toUri().toString());
        tracker.ensure(file.toUri().toString(), writes(file));
        assertEquals(1, uploads.get());
        assertTrue(tracker.tracks(file.toUri().toString()));
    }

    @Test
    void aFailedUploadIsRetriedByTheNextCheckpointThatNeedsIt() throws Exception {
        Path file = dir.resolve("b");
        String location = file.toUri().toString();
        tracker.expect(location);
        IOException e = assertThrows(IOException.class, () -> tracker.ensure(location, () -> {
            throw new IOException("disk full");
        }));
        assertEquals("disk full", e.getMessage());
        tracker.ensure(location, writes(file));
        assertEquals(1, uploads.get());
        assertTrue(Files.exists(file));
    }

    @Test
    void aCheckpointWaitsForTheUploadAnotherOneRuns() throws Exception {
        Path file = dir.resolve("c");
        String location = file.toUri().toString();
        tracker.expect(location);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> ensureQuietly(location, () -> {
            started.countDown();
            release.await(10, TimeUnit.SECONDS);
            writes(file).upload();
        }));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> ensureQuietly(location, writes(file)::upload));
        assertFalse(second.isDone(), "the second checkpoint waits");
        release.countDown();
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
        assertEquals(1, uploads.get());
    }

    @Test
    void aFileDroppedWhileItUploadsIsDeletedWhenTheUploadEnds() throws Exception {
        Path file = dir.resolve("d");
        String location = file.toUri().toString();
        tracker.expect(location);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> upload = CompletableFuture.runAsync(() -> ensureQuietly(location, () -> {
            Files.write(file, new byte[] {1});
            started.countDown();
            release.await(10, TimeUnit.SECONDS);
        }));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        tracker.drop(List.of(location));
        assertTrue(Files.exists(file), "not deleted under the running upload");
        release.countDown();
        upload.get(10, TimeUnit.SECONDS);
        assertFalse(Files.exists(file), "deleted once the upload ended");
        assertFalse(tracker.tracks(location));
        assertEquals(1, tracker.deleted());
        IOException e = assertThrows(IOException.class, () -> tracker.ensure(location, writes(file)));
        assertTrue(e.getMessage().contains("no longer referenced"), e.getMessage());
        assertEquals(0, uploads.get());
    }

    @Test
    void aNewCheckpointKeepsAFileDroppedWhileItUploads() throws Exception {
        Path file = dir.resolve("e");
        String location = file.toUri().toString();
        tracker.expect(location);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> upload = CompletableFuture.runAsync(() -> ensureQuietly(location, () -> {
            started.countDown();
            release.await(10, TimeUnit.SECONDS);
            writes(file).upload();
        }));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        tracker.drop(List.of(location));
        tracker.expect(location); // the next checkpoint's synchronous part needs it again
        release.countDown();
        upload.get(10, TimeUnit.SECONDS);
        assertTrue(Files.exists(file));
        tracker.ensure(location, writes(file));
        assertEquals(1, uploads.get());
        assertEquals(0, tracker.deleted());
    }

    @Test
    void droppingAFileNotUploadingDeletesItAtOnce() throws Exception {
        Path file = dir.resolve("f");
        Files.write(file, new byte[] {1});
        tracker.drop(List.of(file.toUri().toString())); // restored, never uploaded by this attempt
        assertFalse(Files.exists(file));
        assertEquals(1, tracker.deleted());
    }

    /** An upload as a checkpoint thread runs it; a test thread reports failures by throwing. */
    private interface Step {
        void run() throws Exception;
    }

    private void ensureQuietly(String location, Step step) {
        try {
            tracker.ensure(location, () -> {
                try {
                    step.run();
                } catch (IOException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException(e);
                }
            });
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
