package io.flinkagentsmemory.checkpoint;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32;

import io.flinkagentsmemory.index.KeyGroupIndex;
import io.flinkagentsmemory.index.LocalFiles;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.IndexCommit;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * One key group in an incremental checkpoint: plans, on the task thread, which of the commit's
 * files no live checkpoint holds yet, and uploads them to the shared store in the asynchronous
 * part before writing a {@link KeyGroupManifest}; restore copies the named files back and
 * verifies each against its length and Lucene's CRC32 footer.
 */
final class IncrementalSnapshot {

    private static final int BUFFER = 64 * 1024;

    /** Bytes of an index file that its footer checksum does not cover (the checksum itself). */
    private static final int CHECKSUM_BYTES = Long.BYTES;

    private IncrementalSnapshot() {}

    /**
     * One key group's share of an incremental checkpoint, planned on the task thread: the
     * manifest (already serialized) and the files only this attempt uploads. {@link #write}
     * makes sure each of those is in the store (another checkpoint in flight may be uploading
     * it), then writes the manifest.
     */
    record Plan(Directory dir, SharedFileStore store, UploadTracker tracker, List<IndexFile> toEnsure,
            byte[] manifest, long uploadedBytes, long indexBytes, int uploadedFiles) implements PendingSnapshot.Part {

        @Override
        public void write(DataOutputStream out) throws IOException, InterruptedException {
            for (IndexFile file : toEnsure) {
                tracker.ensure(store.locationOf(file), () -> {
                    try (IndexInput in = dir.openInput(file.name(), IOContext.READONCE)) {
                        store.upload(file, in);
                    }
                });
            }
            out.write(manifest);
        }

        @Override
        public long bytes() {
            return uploadedBytes + manifest.length;
        }
    }

    /**
     * Plans key group {@code index}'s share of checkpoint {@code checkpointId} from the pinned
     * {@code commit}: files no live checkpoint holds get their (deterministic) location in
     * {@code store} and are expected by {@code tracker}; all are referenced in {@code registry}.
     * Reads only the files' footers; task thread.
     */
    static Plan plan(KeyGroupIndex index, IndexCommit commit, long checkpointId, SharedFileStore store,
            SharedFileRegistry registry, UploadTracker tracker) throws IOException {
        int kg = index.keyGroup();
        List<IndexFile> files = new ArrayList<>();
        List<StoredFile> current = new ArrayList<>();
        List<IndexFile> toEnsure = new ArrayList<>();
        long uploaded = 0;
        long indexBytes = 0;
        int uploadedFiles = 0;
        for (String name : commit.getFileNames()) {
            IndexFile file;
            try (IndexInput in = index.directory().openInput(name, IOContext.READONCE)) {
                file = new IndexFile(kg, name, in.length(), CodecUtil.retrieveChecksum(in));
            }
            indexBytes += file.length();
            String location = registry.reusable(file);
            if (location == null) {
                location = store.locationOf(file);
                registry.uploaded(file, location);
                tracker.expect(location);
                uploaded += file.length();
                uploadedFiles++;
            }
            if (tracker.tracks(location)) {
                toEnsure.add(file);
            }
            files.add(file);
            current.add(new StoredFile(file, location, checkpointId));
        }
        registry.referenced(checkpointId, files);
        Set<IndexFile> now = new HashSet<>(files);
        List<StoredFile> retained = registry.live(kg).stream().filter(f -> !now.contains(f.file())).toList();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(KeyGroupIndexSnapshotter.INCREMENTAL_VERSION);
        new KeyGroupManifest(kg, current, retained).write(out);
        out.flush();
        return new Plan(index.directory(), store, tracker, toEnsure, bytes.toByteArray(), uploaded, indexBytes,
                uploadedFiles);
    }

    /**
     * Replaces {@code targetDir} with the manifest's current files, each verified, and tells
     * {@code registry} (if any) which checkpoint references which stored file.
     */
    static void restore(KeyGroupManifest manifest, Path targetDir, SharedFileRegistry registry) throws IOException {
        LocalFiles.deleteRecursively(targetDir);
        Files.createDirectories(targetDir);
        byte[] buf = new byte[BUFFER];
        for (StoredFile f : manifest.current()) {
            copyVerified(f, targetDir.resolve(f.file().name()), buf);
        }
        if (registry != null) {
            for (StoredFile f : manifest.current()) {
                registry.restored(f.file(), f.location(), f.newestCheckpoint());
            }
            for (StoredFile f : manifest.retained()) {
                registry.restored(f.file(), f.location(), f.newestCheckpoint());
            }
        }
    }

    private static void copyVerified(StoredFile f, Path target, byte[] buf) throws IOException {
        IndexFile file = f.file();
        CRC32 crc = new CRC32();
        ByteBuffer footer = ByteBuffer.allocate(CHECKSUM_BYTES);
        long covered = file.length() - CHECKSUM_BYTES;
        long pos = 0;
        try (InputStream in = SharedFileStore.open(f.location()); OutputStream out = Files.newOutputStream(target)) {
            while (pos < file.length()) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, file.length() - pos));
                if (n < 0) {
                    throw corrupt(f, "it ends after " + pos + " of " + file.length() + " bytes");
                }
                out.write(buf, 0, n);
                int crcEnd = (int) Math.max(0, Math.min(n, covered - pos));
                crc.update(buf, 0, crcEnd);
                for (int i = crcEnd; i < n; i++) {
                    footer.put(buf[i]);
                }
                pos += n;
            }
            if (in.read() >= 0) {
                throw corrupt(f, "it is longer than " + file.length() + " bytes");
            }
        }
        footer.flip();
        long stored = footer.remaining() == CHECKSUM_BYTES ? footer.getLong() : -1;
        if (crc.getValue() != file.checksum() || stored != file.checksum()) {
            throw corrupt(f, "checksum " + Long.toHexString(crc.getValue()) + " does not match "
                    + Long.toHexString(file.checksum()));
        }
    }

    private static IOException corrupt(StoredFile f, String why) {
        return new IOException("long-term memory checkpoint file " + f.location() + " (index file '"
                + f.file().name() + "' of key group " + f.file().keyGroup() + ") is truncated or corrupt: " + why);
    }
}
