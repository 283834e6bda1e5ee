package io.flinkagentsmemory.operator;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Where durable call outcomes are logged: {@code <checkpoint dir>/<job id>/durable-calls/<operator
 * id>}, beside the job's checkpoints, so the log outlives the failure that rolls state back. Only a
 * checkpoint directory Python can write as files ({@code file:} URIs or plain paths, which covers a
 * folder every TaskManager mounts) gets one; elsewhere (object stores) outcomes live in checkpoints
 * only. A job resumed from a retained checkpoint {@code <dir>/<old job id>/chk-N} also reads the
 * old job's folder.
 */
record DurableLogPlace(String directory, String restoredFrom) {

    static final String FOLDER = "durable-calls";

    /** The place for this operator, from the job's settings ({@code setting(key, fallback)}). */
    static Optional<DurableLogPlace> of(BiFunction<String, String, String> setting, String jobId, String operatorId) {
        String checkpoints = setting.apply("execution.checkpointing.dir", null);
        if (checkpoints == null) {
            checkpoints = setting.apply("state.checkpoints.dir", null);
        }
        Path root = localPath(checkpoints);
        if (root == null) {
            return Optional.empty();
        }
        String restoredFrom = null;
        Path restore = localPath(setting.apply("execution.state-recovery.path", null));
        if (restore != null && restore.getFileName() != null && restore.getFileName().toString().startsWith("chk-")
                && restore.getParent() != null) {
            restoredFrom = restore.getParent().resolve(FOLDER).resolve(operatorId).toString();
        }
        return Optional.of(new DurableLogPlace(
                root.resolve(jobId).resolve(FOLDER).resolve(operatorId).toString(), restoredFrom));
    }

    /** A local filesystem path for {@code location}, or null (unset, or another filesystem). */
    static Path localPath(String location) {
        if (location == null || location.isBlank()) {
            return null;
        }
        if (location.startsWith("/")) {
            return Path.of(location);
        }
        URI uri = URI.create(location.trim());
        return "file".equals(uri.getScheme()) ? Path.of(uri) : null;
    }
}
