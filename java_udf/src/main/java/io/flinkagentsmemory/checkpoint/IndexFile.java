package io.flinkagentsmemory.checkpoint;

/**
 * One immutable Lucene file of a key group's index, identified by name, length and the CRC32
 * of its codec footer. Lucene never rewrites a file under the same name, but an index restored
 * from an older checkpoint may write a different file under a name used before: length and
 * checksum tell the two apart.
 */
public record IndexFile(int keyGroup, String name, long length, long checksum) {

    public IndexFile {
        checkedName(name);
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length + " of index file '" + name + "'");
        }
    }

    /** A snapshot names plain Lucene files; anything with a path in it is corrupt or hostile. */
    static String checkedName(String name) {
        if (name == null || name.isEmpty() || name.contains("/") || name.contains("\\")
                || name.equals("..") || name.equals(".")) {
            throw new IllegalArgumentException("invalid index file name in snapshot: '" + name + "'");
        }
        return name;
    }
}
