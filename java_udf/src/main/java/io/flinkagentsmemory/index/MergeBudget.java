package io.flinkagentsmemory.index;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.lucene.index.IndexCommit;
import org.apache.lucene.index.IndexDeletionPolicy;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;

/**
 * How many bytes merges may still rewrite that a checkpoint has already uploaded. An incremental
 * checkpoint uploads every file of its commit that no earlier one held, so a merge of segments
 * no commit has held yet costs nothing extra (its output is uploaded instead of its inputs), but
 * merging a committed segment uploads its bytes again. Merges earn {@link #CREDIT} bytes per byte
 * flushed (new documents) and spend the committed bytes they rewrite: over any run, checkpoint
 * bytes stay under about {@code 1 + CREDIT} times the bytes flushed. Credit lasts
 * {@link #WINDOW} commits: a bulk load's credit is not spent later on rewriting what it loaded,
 * so no checkpoint uploads more than {@code CREDIT} times what the last {@code WINDOW} flushed on
 * top of its own new documents. Segments the index was opened with (restored) earn nothing,
 * except that an index opened with several segments may fold them once ({@link #trySpendFold}):
 * one upload of it again, against a search that would pay for each segment until writes earned
 * enough to merge them.
 * Pure bookkeeping; the writer's threads share it.
 */
final class MergeBudget {

    /** Committed bytes merges may rewrite per byte flushed. */
    static final double CREDIT = 1.5;

    /** Commits over which credit is kept: unspent credit of older flushes expires. */
    static final int WINDOW = 20;

    private static final String SOURCE = "source";
    private static final String FLUSH = "flush";

    /** Segments already credited or opened with. */
    private final Set<String> seen = new HashSet<>();
    /** Segments of the newest commit: rewriting them costs a checkpoint their bytes again. */
    private Set<String> committed = Set.of();
    /** Bytes of the segments merges were handed, by name, while those segments exist. */
    private final Map<String, Long> merging = new HashMap<>();
    private double available;
    /** The one fold an index opened with several segments may make of them. */
    private double openedFoldCredit;
    /** Bytes flushed since the last commit, and in each of the last {@link #WINDOW} commits. */
    private long flushedSinceCommit;
    private final ArrayDeque<Long> flushedPerCommit = new ArrayDeque<>();

    /** Credits the flushed segments of {@code infos} not seen before. */
    synchronized void observe(SegmentInfos infos) throws IOException {
        Set<String> names = new HashSet<>();
        for (SegmentCommitInfo s : infos) {
            names.add(s.info.name);
        }
        merging.keySet().retainAll(names);
        for (SegmentCommitInfo s : infos) {
            if (seen.add(s.info.name) && FLUSH.equals(s.info.getDiagnostics().get(SOURCE))) {
                available += CREDIT * s.sizeInBytes();
                flushedSinceCommit += s.sizeInBytes();
            }
        }
    }

    /** Bytes a merge of {@code segments} rewrites that a checkpoint has already uploaded. */
    synchronized long cost(Collection<SegmentCommitInfo> segments) {
        long bytes = 0;
        for (SegmentCommitInfo s : segments) {
            if (committed.contains(s.info.name)) {
                bytes += bytes(s);
            }
        }
        return bytes;
    }

    /**
     * Spends the committed bytes of {@code segments} if the budget holds them; returns whether
     * it did. If so they are being merged, and a commit that takes them meanwhile pays for them.
     */
    synchronized boolean trySpend(Collection<SegmentCommitInfo> segments) {
        long bytes = cost(segments);
        if (bytes > available) {
            return false;
        }
        available -= bytes;
        for (SegmentCommitInfo s : segments) {
            merging.put(s.info.name, bytes(s));
        }
        return true;
    }

    synchronized double available() {
        return available;
    }

    /** What a fold may spend: the budget, plus the opened index's one fold. */
    synchronized double foldAvailable() {
        return available + openedFoldCredit;
    }

    /** As {@link #trySpend} for a fold, which may use the opened index's one fold first. */
    synchronized boolean trySpendFold(Collection<SegmentCommitInfo> segments) {
        long bytes = cost(segments);
        if (bytes > foldAvailable()) {
            return false;
        }
        double fromOpened = Math.min(openedFoldCredit, bytes);
        openedFoldCredit = 0;
        available += fromOpened;
        return trySpend(segments);
    }

    /**
     * {@code delegate}, telling this budget which segments each commit holds (and, when the
     * writer opens, that the segments it was opened with are neither new nor free to rewrite).
     */
    IndexDeletionPolicy tracking(IndexDeletionPolicy delegate) {
        return new IndexDeletionPolicy() {
            @Override
            public void onInit(List<? extends IndexCommit> commits) throws IOException {
                if (!commits.isEmpty()) {
                    IndexCommit last = commits.get(commits.size() - 1);
                    Set<String> names = segmentNames(last);
                    long bytes = 0;
                    for (String file : last.getFileNames()) {
                        bytes += last.getDirectory().fileLength(file);
                    }
                    synchronized (MergeBudget.this) {
                        seen.addAll(names);
                        committed = names;
                        openedFoldCredit = names.size() > 1 ? bytes : 0;
                    }
                }
                delegate.onInit(commits);
            }

            @Override
            public void onCommit(List<? extends IndexCommit> commits) throws IOException {
                Set<String> names = segmentNames(commits.get(commits.size() - 1));
                synchronized (MergeBudget.this) {
                    for (String name : names) {
                        if (!committed.contains(name)) {
                            available -= merging.getOrDefault(name, 0L);
                        }
                    }
                    committed = names;
                    expire();
                }
                delegate.onCommit(commits);
            }
        };
    }

    /** At a commit: credit beyond what the last {@link #WINDOW} commits' flushes earned expires. */
    private void expire() {
        flushedPerCommit.addLast(flushedSinceCommit);
        flushedSinceCommit = 0;
        if (flushedPerCommit.size() > WINDOW) {
            flushedPerCommit.removeFirst();
        }
        long recent = 0;
        for (long bytes : flushedPerCommit) {
            recent += bytes;
        }
        available = Math.min(available, CREDIT * recent);
    }

    private static Set<String> segmentNames(IndexCommit commit) throws IOException {
        Set<String> names = new HashSet<>();
        for (String file : commit.getFileNames()) {
            if (!file.startsWith(IndexFileNames.SEGMENTS)) {
                names.add(IndexFileNames.parseSegmentName(file));
            }
        }
        return names;
    }

    static long bytes(SegmentCommitInfo s) {
        try {
            return s.sizeInBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
