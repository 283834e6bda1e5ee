package io.flinkagentsmemory.index;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Local index directories are replaced wholesale on restore; this removes one. */
public final class LocalFiles {

    private LocalFiles() {}

    /** Deletes {@code path} and everything below it; a missing path is fine. */
    public static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        List<Path> all;
        try (Stream<Path> walk = Files.walk(path)) {
            all = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path p : all) {
            Files.delete(p);
        }
    }
}
