package io.flinkagentsmemory.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;

class KeyGroupManifestTest {

    private static final StoredFile A = new StoredFile(new IndexFile(9, "_0.cfs", 1234, 0xCAFEL), "file:/s/kg-9/a", 5);
    private static final StoredFile B = new StoredFile(new IndexFile(9, "segments_3", 77, 0xBEEFL), "file:/s/kg-9/b", 5);
    private static final StoredFile OLD = new StoredFile(new IndexFile(9, "_x.cfs", 10, 1), "file:/s/kg-9/c", 3);

    @Test
    void roundTripReadsExactlyTheManifest() throws IOException {
        KeyGroupManifest m = new KeyGroupManifest(9, List.of(A, B), List.of(OLD));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        long written = m.write(out);
        out.writeInt(0x5EED); // what follows in the stream must stay unread
        assertEquals(bytes.size() - 4, written);
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
        assertEquals(m, KeyGroupManifest.read(9, in));
        assertEquals(0x5EED, in.readInt());
    }

    @Test
    void badInputIsAClearError() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(-3);
        IOException e = assertThrows(IOException.class, () -> KeyGroupManifest.read(4, in(bytes)));
        assertTrue(e.getMessage().contains("key group 4") && e.getMessage().contains("-3"), e.getMessage());

        bytes.reset();
        out.writeInt(1);
        out.writeUTF("../../etc/passwd");
        out.writeLong(1);
        out.writeLong(1);
        out.writeUTF("file:/x");
        out.writeLong(1);
        e = assertThrows(IOException.class, () -> KeyGroupManifest.read(4, in(bytes)));
        assertTrue(e.getMessage().contains("invalid index file name"), e.getMessage());

        bytes.reset();
        out.writeInt(2);
        out.writeUTF("_0.cfs");
        e = assertThrows(IOException.class, () -> KeyGroupManifest.read(4, in(bytes)));
        assertTrue(e instanceof java.io.EOFException, "a truncated manifest ends in EOF");

        assertThrows(IllegalArgumentException.class, () -> new IndexFile(1, "a", -1, 0));
        assertThrows(IllegalArgumentException.class, () -> new StoredFile(A.file(), "", 1));
    }

    private static DataInputStream in(ByteArrayOutputStream bytes) {
        return new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
    }
}
