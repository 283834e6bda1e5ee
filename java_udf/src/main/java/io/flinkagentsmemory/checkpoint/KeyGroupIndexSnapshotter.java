package io.flinkagentsmemory.checkpoint;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.flinkagentsmemory.index.KeyGroupIndex;
import io.flinkagentsmemory.index.LocalFiles;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.lucene.index.IndexCommit;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * Writes one key group's index as a self-delimiting blob in a checkpoint stream, and back. Flink
 * hands a restored key group's stream positioned at its start but not bounded at its end, so the
 * blob carries its own lengths. Two formats, told apart by the leading version int:
 * <ul>
 *   <li>{@link #FORMAT_VERSION} (full, self-contained; savepoints and storage without a shared
 *   directory): {@code int fileCount, fileCount × (UTF name, long length, bytes)};
 *   {@code fileCount = 0} marks "no index".</li>
 *   <li>{@link #INCREMENTAL_VERSION}: a {@link KeyGroupManifest} naming files in the job's shared
 *   checkpoint directory (see {@link IncrementalSnapshot}).</li>
 * </ul>
 * A commit is pinned with SnapshotDeletionPolicy while it is copied, so later writes (and
 * merges) cannot delete its files; in a checkpoint the task thread pins it and the asynchronous
 * part copies it ({@link PendingSnapshot}).
 */
public final class KeyGroupIndexSnapshotter {

    static final int FORMAT_VERSION = 1;

    static final int INCREMENTAL_VERSION = 2;

    private static final int BUFFER = 64 * 1024;

    private KeyGroupIndexSnapshotter() {}

    /** Commits {@code index} and writes that commit's files; returns the bytes written. */
    public static long write(KeyGroupIndex index, DataOutputStream out) throws IOException {
        IndexCommit commit = index.acquireCommit();
        try {
            return write(index.directory(), commit, out);
        } finally {
            index.releaseCommit(commit);
        }
    }

    /** Writes the files of {@code commit} (pinned by the caller) from {@code dir}; returns the bytes. */
    static long write(Directory dir, IndexCommit commit, DataOutputStream out) throws IOException {
        List<String> names = new ArrayList<>(commit.getFileNames());
        out.writeInt(FORMAT_VERSION);
        out.writeInt(names.size());
        long written = 2L * Integer.BYTES;
        byte[] buf = new byte[BUFFER];
        for (String name : names) {
            try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
                long length = in.length();
                out.writeUTF(name);
                out.writeLong(length);
                written += entryOverhead(name) + copy(in, length, out, buf);
            }
        }
        out.flush();
        return written;
    }

    /**
     * A key group's full copy in a checkpoint: planned on the task thread from a pinned commit,
     * written by the asynchronous part.
     */
    static PendingSnapshot.Part fullCopy(Directory dir, IndexCommit commit) throws IOException {
        long indexBytes = 0;
        long bytes = 2L * Integer.BYTES;
        for (String name : commit.getFileNames()) {
            long length = dir.fileLength(name);
            indexBytes += length;
            bytes += entryOverhead(name) + length;
        }
        return new FullCopy(dir, commit, bytes, indexBytes);
    }

    /** The blob of a key group without an index. */
    static PendingSnapshot.Part empty() {
        return new Empty();
    }

    private record FullCopy(Directory dir, IndexCommit commit, long bytes, long indexBytes)
            implements PendingSnapshot.Part {
        @Override
        public void write(DataOutputStream out) throws IOException {
            KeyGroupIndexSnapshotter.write(dir, commit, out);
        }

        @Override
        public int uploadedFiles() {
            return 0;
        }
    }

    private record Empty() implements PendingSnapshot.Part {
        @Override
        public void write(DataOutputStream out) throws IOException {
            writeEmpty(out);
        }

        @Override
        public long bytes() {
            return 2L * Integer.BYTES;
        }

        @Override
        public long indexBytes() {
            return 0;
        }

        @Override
        public int uploadedFiles() {
            return 0;
        }
    }

    /** Lucene file names are ASCII: modified UTF-8 is 2 length bytes + 1 per char, then the length. */
    private static long entryOverhead(String name) {
        return 2 + name.length() + Long.BYTES;
    }

    /** Writes the marker of a key group that has no index; returns the bytes written. */
    public static long writeEmpty(DataOutputStream out) throws IOException {
        out.writeInt(FORMAT_VERSION);
        out.writeInt(0);
        out.flush();
        return 2L * Integer.BYTES;
    }

    /**
     * Reads one blob; unless it is the empty marker, replaces {@code targetDir} with its files so
     * an index opened there sees exactly the snapshotted documents. Returns whether an index was
     * restored. Reads exactly the blob, nothing after it.
     */
    public static boolean restore(DataInputStream in, Path targetDir) throws IOException {
        return restore(in, targetDir, -1, null);
    }

    /**
     * As {@link #restore(DataInputStream, Path)}, for key group {@code keyGroup}; an incremental
     * blob's files are registered with {@code registry} (null: not tracked).
     */
    public static boolean restore(DataInputStream in, Path targetDir, int keyGroup, SharedFileRegistry registry)
            throws IOException {
        int version = in.readInt();
        if (version == INCREMENTAL_VERSION) {
            KeyGroupManifest manifest = KeyGroupManifest.read(keyGroup, in);
            if (manifest.current().isEmpty()) {
                return false;
            }
            IncrementalSnapshot.restore(manifest, targetDir, registry);
            return true;
        }
        if (version != FORMAT_VERSION) {
            throw new IOException("not a key-group index snapshot (format version " + version
                    + ", expected " + FORMAT_VERSION + " or " + INCREMENTAL_VERSION + ")");
        }
        int count = in.readInt();
        if (count < 0 || count > KeyGroupManifest.MAX_FILES) {
            throw new IOException("corrupt key-group index snapshot: file count " + count);
        }
        if (count == 0) {
            return false;
        }
        LocalFiles.deleteRecursively(targetDir);
        Files.createDirectories(targetDir);
        byte[] buf = new byte[BUFFER];
        for (int i = 0; i < count; i++) {
            String name = in.readUTF();
            long length = in.readLong();
            if (length < 0) {
                throw new IOException("corrupt key-group index snapshot: length " + length + " of '" + name + "'");
            }
            try (OutputStream file = Files.newOutputStream(targetDir.resolve(checkedName(name)))) {
                long left = length;
                while (left > 0) {
                    int n = (int) Math.min(buf.length, left);
                    in.readFully(buf, 0, n);
                    file.write(buf, 0, n);
                    left -= n;
                }
            }
        }
        return true;
    }

    /** Where one file of a full blob lies: {@code length} bytes from {@code offset} of the stream. */
    public record FileRegion(String name, long offset, long length) {}

    /**
     * Reads the file table of one blob without its contents, for a reader that opens the files
     * where they are (the inspector reads a savepoint's files in place). {@code in} is positioned
     * at the blob's start; its files' contents are skipped by seeking. Returns the files of a full
     * blob (empty: no index), or null for an incremental blob (its files are elsewhere: {@link
     * #restore} copies them). Checks what {@link #restore} checks.
     */
    public static List<FileRegion> locate(FSDataInputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int version = data.readInt();
        if (version == INCREMENTAL_VERSION) {
            return null;
        }
        if (version != FORMAT_VERSION) {
            throw new IOException("not a key-group index snapshot (format version " + version
                    + ", expected " + FORMAT_VERSION + " or " + INCREMENTAL_VERSION + ")");
        }
        int count = data.readInt();
        if (count < 0 || count > KeyGroupManifest.MAX_FILES) {
            throw new IOException("corrupt key-group index snapshot: file count " + count);
        }
        List<FileRegion> files = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String name = checkedName(data.readUTF());
            long length = data.readLong();
            if (length < 0) {
                throw new IOException("corrupt key-group index snapshot: length " + length + " of '" + name + "'");
            }
            long offset = in.getPos();
            files.add(new FileRegion(name, offset, length));
            in.seek(offset + length);
        }
        return files;
    }

    private static long copy(IndexInput in, long length, DataOutputStream out, byte[] buf) throws IOException {
        long left = length;
        while (left > 0) {
            int n = (int) Math.min(buf.length, left);
            in.readBytes(buf, 0, n);
            out.write(buf, 0, n);
            left -= n;
        }
        return length;
    }

    /** A snapshot names plain Lucene files; anything with a path in it is corrupt or hostile. */
    private static String checkedName(String name) throws IOException {
        try {
            return IndexFile.checkedName(name);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }
}
