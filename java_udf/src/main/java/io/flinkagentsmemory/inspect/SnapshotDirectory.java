package io.flinkagentsmemory.inspect;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.flinkagentsmemory.checkpoint.KeyGroupIndexSnapshotter.FileRegion;
import org.apache.lucene.store.BaseDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.store.NoLockFactory;

/**
 * A read-only Lucene directory whose files are regions of one larger input: a key group's index
 * as a savepoint stores it (its files back to back in the subtask's raw keyed state file). Every
 * file opens as a slice of that input, the way Lucene reads a compound file, so nothing is copied
 * and nothing is written: the inspector opens the savepoint's own bytes in place. Writing methods
 * throw {@link AccessDeniedException}. The source input is owned by the caller (shared by every
 * key group of the same state file) and is not closed here.
 */
final class SnapshotDirectory extends BaseDirectory {

    private final String description;
    private final IndexInput source;
    private final Map<String, FileRegion> files = new TreeMap<>();

    /** The files in {@code regions}, positions in {@code source}; each must lie inside it. */
    SnapshotDirectory(String description, IndexInput source, Collection<FileRegion> regions) throws IOException {
        super(NoLockFactory.INSTANCE);
        this.description = description;
        this.source = source;
        for (FileRegion r : regions) {
            if (r.offset() < 0 || r.offset() + r.length() > source.length()) {
                throw new IOException("truncated: file '" + r.name() + "' needs bytes " + r.offset() + ".."
                        + (r.offset() + r.length()) + " of a state file of " + source.length() + " bytes");
            }
            if (files.put(r.name(), r) != null) {
                throw new IOException("file '" + r.name() + "' is stored twice");
            }
        }
    }

    @Override
    public String[] listAll() {
        ensureOpen();
        return files.keySet().toArray(new String[0]);
    }

    @Override
    public long fileLength(String name) throws IOException {
        return region(name).length();
    }

    /** The sum of the files' lengths. */
    long bytes() {
        return files.values().stream().mapToLong(FileRegion::length).sum();
    }

    @Override
    public IndexInput openInput(String name, IOContext context) throws IOException {
        FileRegion r = region(name);
        synchronized (source) {
            return source.slice(name, r.offset(), r.length());
        }
    }

    private FileRegion region(String name) throws NoSuchFileException {
        ensureOpen();
        FileRegion r = files.get(name);
        if (r == null) {
            throw new NoSuchFileException(name + " (in " + description + ")");
        }
        return r;
    }

    @Override
    public void deleteFile(String name) throws IOException {
        throw readOnly();
    }

    @Override
    public IndexOutput createOutput(String name, IOContext context) throws IOException {
        throw readOnly();
    }

    @Override
    public IndexOutput createTempOutput(String prefix, String suffix, IOContext context) throws IOException {
        throw readOnly();
    }

    @Override
    public void sync(Collection<String> names) throws IOException {
        throw readOnly();
    }

    @Override
    public void syncMetaData() throws IOException {
        throw readOnly();
    }

    @Override
    public void rename(String source, String dest) throws IOException {
        throw readOnly();
    }

    @Override
    public Set<String> getPendingDeletions() {
        return Set.of();
    }

    @Override
    public void close() {
        isOpen = false;
    }

    private AccessDeniedException readOnly() {
        return new AccessDeniedException(description + " is read-only");
    }

    @Override
    public String toString() {
        return "SnapshotDirectory(" + description + ")";
    }
}
