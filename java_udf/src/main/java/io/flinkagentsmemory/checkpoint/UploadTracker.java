package io.flinkagentsmemory.checkpoint;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The shared files this subtask attempt uploads, between the checkpoints that need them. A file
 * is planned in a checkpoint's synchronous part ({@link #expect}, task thread) and uploaded in an
 * asynchronous part ({@link #ensure}); several checkpoints in flight may need one file, so the
 * first async part to get there uploads it and the others wait for it, and a failed upload is
 * retried by the next checkpoint that needs it. A file the registry lets go while its upload runs
 * ({@link #drop}) is deleted once the upload ends, so no orphan is left behind it.
 */
final class UploadTracker {

    /** Writes one file to its location in the shared store. */
    @FunctionalInterface
    interface Uploader {
        void upload() throws IOException;
    }

    private enum State { PLANNED, RUNNING, DONE, FAILED }

    private static final class Upload {
        State state = State.PLANNED;
        boolean dropped;
    }

    private final Map<String, Upload> uploads = new HashMap<>();
    private long deleted;

    /** A checkpoint references {@code location}, which an async part will upload. */
    synchronized void expect(String location) {
        uploads.computeIfAbsent(location, l -> new Upload()).dropped = false;
    }

    /** Whether {@code location} is one of this attempt's uploads (planned, running or done). */
    synchronized boolean tracks(String location) {
        return uploads.containsKey(location);
    }

    /**
     * Returns once {@code location} holds its file: at once if uploaded, after waiting for an
     * upload in progress, else after running {@code uploader} here. Fails if nothing references
     * the file any more (its checkpoint was aborted or subsumed).
     */
    void ensure(String location, Uploader uploader) throws IOException, InterruptedException {
        Upload u;
        synchronized (this) {
            while (true) {
                u = uploads.get(location);
                if (u == null || u.dropped) {
                    throw new IOException("shared file " + location + " is no longer referenced by any "
                            + "checkpoint in flight (aborted or subsumed); not uploading it");
                }
                if (u.state == State.DONE) {
                    return;
                }
                if (u.state != State.RUNNING) {
                    u.state = State.RUNNING;
                    break;
                }
                wait();
            }
        }
        boolean ok = false;
        try {
            uploader.upload();
            ok = true;
        } finally {
            boolean delete;
            synchronized (this) {
                u.state = ok ? State.DONE : State.FAILED;
                delete = u.dropped;
                if (delete) {
                    uploads.remove(location, u);
                }
                notifyAll();
            }
            if (delete) {
                deleteNow(List.of(location));
            }
        }
    }

    /**
     * Nothing retained references {@code locations} any more: deletes them, or, for a file whose
     * upload runs right now, marks it to be deleted when that upload ends. Files this attempt did
     * not upload (restored ones) are deleted at once.
     */
    void drop(Collection<String> locations) throws IOException {
        List<String> now = new ArrayList<>();
        synchronized (this) {
            for (String location : locations) {
                Upload u = uploads.get(location);
                if (u != null && u.state == State.RUNNING) {
                    u.dropped = true;
                } else {
                    uploads.remove(location);
                    now.add(location);
                }
            }
        }
        deleteNow(now);
    }

    /** Files deleted so far (at once or after their upload). */
    synchronized long deleted() {
        return deleted;
    }

    private void deleteNow(List<String> locations) throws IOException {
        SharedFileStore.delete(locations);
        synchronized (this) {
            deleted += locations.size();
        }
    }
}
