package io.flinkagentsmemory.checkpoint;

/**
 * An index file uploaded once to the job's shared checkpoint directory: where it lies, and the
 * newest checkpoint that references it (what lifetime accounting needs after a restore).
 */
public record StoredFile(IndexFile file, String location, long newestCheckpoint) {

    public StoredFile {
        if (location == null || location.isEmpty()) {
            throw new IllegalArgumentException("index file '" + file.name() + "' has no location");
        }
    }
}
