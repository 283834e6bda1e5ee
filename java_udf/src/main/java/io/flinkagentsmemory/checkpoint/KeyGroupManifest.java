package io.flinkagentsmemory.checkpoint;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What an incremental checkpoint keeps in raw keyed state for one key group: the files of the
 * index commit to restore ({@code current}), and the files only older, still retained checkpoints
 * reference ({@code retained}), so a restored job keeps deleting them once they are subsumed.
 * Format after the version int: {@code int n, n × entry, int m, m × entry}, entry = {@code UTF
 * name, long length, long checksum, UTF location, long newestCheckpoint}.
 */
public record KeyGroupManifest(int keyGroup, List<StoredFile> current, List<StoredFile> retained) {

    /** Far more files than any key group's index holds: a larger count is a corrupt stream. */
    static final int MAX_FILES = 1_000_000;

    public KeyGroupManifest {
        current = List.copyOf(current);
        retained = List.copyOf(retained);
    }

    /** Writes the manifest (without the version, which the caller writes); returns the bytes. */
    public long write(DataOutputStream out) throws IOException {
        int before = out.size();
        writeList(current, out);
        writeList(retained, out);
        return out.size() - before;
    }

    /** Reads a manifest of {@code keyGroup}, the version int already consumed. */
    public static KeyGroupManifest read(int keyGroup, DataInputStream in) throws IOException {
        return new KeyGroupManifest(keyGroup, readList(keyGroup, in), readList(keyGroup, in));
    }

    private static void writeList(List<StoredFile> files, DataOutputStream out) throws IOException {
        out.writeInt(files.size());
        for (StoredFile f : files) {
            out.writeUTF(f.file().name());
            out.writeLong(f.file().length());
            out.writeLong(f.file().checksum());
            out.writeUTF(f.location());
            out.writeLong(f.newestCheckpoint());
        }
    }

    private static List<StoredFile> readList(int keyGroup, DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_FILES) {
            throw new IOException("corrupt long-term memory manifest of key group " + keyGroup
                    + ": file count " + n);
        }
        List<StoredFile> files = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String name = in.readUTF();
            long length = in.readLong();
            long checksum = in.readLong();
            String location = in.readUTF();
            long newest = in.readLong();
            try {
                files.add(new StoredFile(new IndexFile(keyGroup, name, length, checksum), location, newest));
            } catch (IllegalArgumentException e) {
                throw new IOException("corrupt long-term memory manifest of key group " + keyGroup
                        + ": " + e.getMessage(), e);
            }
        }
        return files;
    }
}
