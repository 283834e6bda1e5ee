package io.flinkagentsmemory.checkpoint;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Which shared index files each checkpoint of one subtask references, and which may go. Flink
 * does not track these files (they are not in a state backend's incremental handle), so this
 * decides their deletion; pure bookkeeping, no I/O.
 *
 * <p>A file may be deleted once no checkpoint that may still be retained references it. Flink
 * keeps the newest {@code numRetained} completed checkpoints, and completion notices may be
 * lost, so the floor is the {@code numRetained}-th newest checkpoint known complete: a checkpoint
 * below it can never be retained, one at or above it is kept unless known aborted. A file this
 * job does not own (restored from another job's checkpoint without CLAIM) is never deleted and
 * never reused: the new job's checkpoints must not depend on it.
 */
public final class SharedFileRegistry {

    private static final class Entry {
        final String location;
        boolean owned;
        final NavigableSet<Long> refs = new TreeSet<>();

        Entry(String location, boolean owned) {
            this.location = location;
            this.owned = owned;
        }
    }

    private final int numRetained;
    private final Map<IndexFile, Entry> files = new HashMap<>();
    private final NavigableSet<Long> completed = new TreeSet<>();

    public SharedFileRegistry(int numRetained) {
        if (numRetained < 1) {
            throw new IllegalArgumentException("retained checkpoints must be at least 1, got " + numRetained);
        }
        this.numRetained = numRetained;
    }

    /** Where an owned, uploaded copy of {@code file} lies, or null if it must be uploaded. */
    public String reusable(IndexFile file) {
        Entry e = files.get(file);
        return e != null && e.owned ? e.location : null;
    }

    /** A file this job has just written to {@code location}. */
    public void uploaded(IndexFile file, String location) {
        files.put(file, new Entry(location, true));
    }

    /**
     * A file named by a restored manifest, referenced by {@code checkpointId}; its ownership is
     * settled by {@link #settleOwnership} once the job's own shared directory is known.
     */
    public void restored(IndexFile file, String location, long checkpointId) {
        Entry e = files.computeIfAbsent(file, f -> new Entry(location, false));
        e.refs.add(checkpointId);
    }

    /** The checkpoint a job restored from is complete (and retained) by definition. */
    public void restoredFrom(long checkpointId) {
        completed.add(checkpointId);
    }

    /** Keeps the restored files this job owns; forgets the others (never reused, never deleted). */
    public void settleOwnership(Predicate<String> ownedLocation) {
        files.values().removeIf(e -> {
            e.owned = e.owned || ownedLocation.test(e.location);
            return !e.owned;
        });
    }

    /** Checkpoint {@code checkpointId} names {@code referenced} in its manifests. */
    public void referenced(long checkpointId, Iterable<IndexFile> referenced) {
        for (IndexFile f : referenced) {
            Entry e = files.get(f);
            if (e == null) {
                throw new IllegalStateException("checkpoint " + checkpointId + " references " + f
                        + ", which was never uploaded or restored");
            }
            e.refs.add(checkpointId);
        }
    }

    /** A checkpoint completed: returns the locations of owned files nothing retained references. */
    public List<String> completed(long checkpointId) {
        completed.add(checkpointId);
        if (completed.size() < numRetained) {
            return List.of();
        }
        while (completed.size() > numRetained) {
            completed.pollFirst();
        }
        long floor = completed.first();
        for (Entry e : files.values()) {
            e.refs.headSet(floor, false).clear();
        }
        return collect();
    }

    /** A checkpoint was aborted: returns the locations of owned files only it referenced. */
    public List<String> aborted(long checkpointId) {
        for (Entry e : files.values()) {
            e.refs.remove(checkpointId);
        }
        return collect();
    }

    /** Owned files of {@code keyGroup} that a checkpoint may still need, with their newest reference. */
    public List<StoredFile> live(int keyGroup) {
        List<StoredFile> out = new ArrayList<>();
        files.forEach((f, e) -> {
            if (f.keyGroup() == keyGroup && e.owned && !e.refs.isEmpty()) {
                out.add(new StoredFile(f, e.location, e.refs.last()));
            }
        });
        return out;
    }

    /** Locations of every file this registry knows (a sweep keeps these). */
    public Set<String> locations() {
        Set<String> out = new java.util.HashSet<>();
        files.values().forEach(e -> out.add(e.location));
        return out;
    }

    /** Files known, owned or not (for tests and metrics). */
    public int size() {
        return files.size();
    }

    private List<String> collect() {
        List<String> deletable = new ArrayList<>();
        Iterator<Entry> it = files.values().iterator();
        while (it.hasNext()) {
            Entry e = it.next();
            if (e.refs.isEmpty()) {
                it.remove();
                if (e.owned) {
                    deletable.add(e.location);
                }
            }
        }
        return deletable;
    }
}
