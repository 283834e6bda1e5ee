package io.flinkagentsmemory.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.lucene.store.IndexInput;

/**
 * The index files of one operator in the job's shared checkpoint directory:
 * {@code <shared>/flink-agents-memory/<operator>/kg-<n>/<file>.<length>.<crc>}. Names are
 * deterministic, so an upload cut short (kill -9) is overwritten by the next upload of the same
 * file, and a restored subtask can list its key groups' folders to delete what no checkpoint
 * references (uploads of checkpoints that never completed).
 */
public final class SharedFileStore {

    static final String FOLDER = "flink-agents-memory";

    private static final int BUFFER = 64 * 1024;

    private final Path base;

    /** The store of {@code operator} under a job's shared state directory. */
    public SharedFileStore(Path sharedStateDirectory, String operator) {
        this.base = new Path(new Path(sharedStateDirectory, FOLDER), operator);
    }

    /** Whether {@code location} lies in this store (this job's own files). */
    public boolean contains(String location) {
        return location.startsWith(base.toString() + "/");
    }

    /** Where {@code file} lies once uploaded (the name is derived from the file alone). */
    public String locationOf(IndexFile file) {
        return pathOf(file).toString();
    }

    /** Copies {@code file.length()} bytes of {@code in} to the file's place; returns its location. */
    public String upload(IndexFile file, IndexInput in) throws IOException {
        Path target = pathOf(file);
        FileSystem fs = target.getFileSystem();
        byte[] buf = new byte[BUFFER];
        try (FSDataOutputStream out = fs.create(target, FileSystem.WriteMode.OVERWRITE)) {
            long left = file.length();
            while (left > 0) {
                int n = (int) Math.min(buf.length, left);
                in.readBytes(buf, 0, n);
                out.write(buf, 0, n);
                left -= n;
            }
        }
        return target.toString();
    }

    /** Opens a stored file wherever it lies (this job's store or a restored one). */
    public static InputStream open(String location) throws IOException {
        Path path = new Path(location);
        return path.getFileSystem().open(path);
    }

    /** Deletes stored files; a file already gone is fine. */
    public static void delete(Collection<String> locations) throws IOException {
        for (String location : locations) {
            Path path = new Path(location);
            path.getFileSystem().delete(path, false);
        }
    }

    /** Deletes the files in the folders of {@code keyGroups} that are not in {@code keep}; returns how many. */
    public int sweep(Iterable<Integer> keyGroups, Set<String> keep) throws IOException {
        Set<String> keepNames = new HashSet<>();
        for (String location : keep) {
            Path p = new Path(location);
            keepNames.add(p.getParent().getName() + "/" + p.getName());
        }
        int deleted = 0;
        FileSystem fs = base.getFileSystem();
        for (int kg : keyGroups) {
            Path folder = folderOf(kg);
            if (!fs.exists(folder)) {
                continue;
            }
            FileStatus[] statuses = fs.listStatus(folder);
            if (statuses == null) {
                continue;
            }
            for (FileStatus status : statuses) {
                String name = folder.getName() + "/" + status.getPath().getName();
                if (!status.isDir() && !keepNames.contains(name)) {
                    fs.delete(status.getPath(), false);
                    deleted++;
                }
            }
        }
        return deleted;
    }

    Path folderOf(int keyGroup) {
        return new Path(base, "kg-" + keyGroup);
    }

    private Path pathOf(IndexFile file) {
        return new Path(folderOf(file.keyGroup()), file.name() + "." + file.length() + "."
                + HexFormat.of().toHexDigits(file.checksum()));
    }
}
