package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.lucene.index.FilterMergePolicy;
import org.apache.lucene.index.MergeTrigger;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.TieredMergePolicy;

/**
 * Lucene's tiered merging while the index is written, plus one "fold" of segments into one once
 * the index has gone quiet ({@link #requestFold()}), both within a {@link MergeBudget}.
 *
 * <p>Every segment has its own HNSW graph and a kNN query searches each of them, so fewer
 * segments search faster; but every merged segment is new files that the next incremental
 * checkpoint uploads, so rewriting committed segments multiplies checkpoint bytes. Tiered
 * merging here is log-structured ({@link #SEGMENTS_PER_TIER} segments of a size before they are
 * merged into one of the next size): each document is rewritten about once per tier, and the
 * big segments are rarely touched. A merge tiered merging wants that the budget cannot pay for
 * waits, and the segments without the largest are tried instead, so small segments (cheap, and
 * free while no checkpoint has uploaded them) go on merging.
 *
 * <p>Tiered merging allows segments by the size of the whole index: beside a big segment it lets
 * about twenty small ones pile up before it merges any, and a steady write stream flushes one
 * per reopen of the reader. A search pays ~0.1 ms for each (docs/long_term_memory.md), so the
 * segments above the floor and under {@link #SMALL_SHARE} of the largest are merged by size on
 * their own: {@link #SMALL_PER_LEVEL} of a level make one of the next ({@link #smallMerges}).
 *
 * <p>The fold takes the smallest segments whose committed bytes the budget can pay for: after a
 * bulk load that is the whole index (searched as one segment), after a small burst on a big
 * index only the small segments, never the big one again. An index opened (restored) with
 * several segments may fold them once ({@link MergeBudget#trySpendFold}). Lucene seeds a merged graph with its
 * largest input's graph and inserts only the others' vectors; that reuse needs the largest
 * segment to have no deletions, so when it has some it is not folded (rebuilding the big graph
 * costs minutes of CPU, and tiered merging reclaims its deletions once they pass its threshold).
 */
final class FoldingMergePolicy extends FilterMergePolicy {

    /**
     * Segments up to this size count as equal: a stream of small flushes is merged ten at a
     * time instead of each into a growing one (which would rewrite it for every few documents).
     */
    static final double FLOOR_SEGMENT_MB = 0.5;

    private static final long FLOOR_BYTES = (long) (FLOOR_SEGMENT_MB * 1024 * 1024);

    /** Segments of one size before they merge; each tier rewrites a document once. */
    static final double SEGMENTS_PER_TIER = 10;

    /** Segments of fewer bytes than this share of the largest one's are small (above the floor). */
    static final double SMALL_SHARE = 0.1;

    /**
     * Small segments of one size level that merge into one of the next: at most three of a level
     * are searched, and each small document is rewritten once per level (a level is this many
     * times the size of the one below).
     */
    static final int SMALL_PER_LEVEL = 4;

    private final MergeBudget budget;
    private volatile boolean foldWanted;

    FoldingMergePolicy(TieredMergePolicy tiered, MergeBudget budget) {
        super(tiered);
        this.budget = budget;
    }

    /** Folds at the next merge check once no merge is running (at most one fold per request). */
    void requestFold() {
        foldWanted = true;
    }

    /** Writes resumed: a fold not yet started is no longer wanted. */
    void cancelFold() {
        foldWanted = false;
    }

    @Override
    public MergeSpecification findMerges(MergeTrigger trigger, SegmentInfos infos, MergeContext context)
            throws IOException {
        budget.observe(infos);
        MergeSpecification tiered = affordable(trigger, infos, context);
        if (tiered == null) {
            tiered = smallMerges(infos, context);
        }
        if (tiered != null || !foldWanted || !context.getMergingSegments().isEmpty()) {
            return tiered;
        }
        foldWanted = false;
        List<SegmentCommitInfo> fold = affordablePrefix(smallestFirst(foldable(infos, context)));
        if (fold.size() < 2 || !budget.trySpendFold(fold)) {
            return null;
        }
        MergeSpecification spec = new MergeSpecification();
        spec.add(new OneMerge(fold));
        return spec;
    }

    /**
     * Tiered merging's choice if the budget pays for it; else its choice among the segments
     * left without the largest ones, so a big merge waits until new documents have paid for it.
     */
    private MergeSpecification affordable(MergeTrigger trigger, SegmentInfos infos, MergeContext context)
            throws IOException {
        List<SegmentCommitInfo> candidates = new ArrayList<>(infos.asList());
        while (candidates.size() >= 2) {
            MergeSpecification spec = super.findMerges(trigger, subset(infos, candidates), context);
            if (spec == null) {
                return null;
            }
            List<SegmentCommitInfo> merged = new ArrayList<>();
            for (OneMerge merge : spec.merges) {
                merged.addAll(merge.segments);
            }
            if (budget.trySpend(merged)) {
                return spec;
            }
            candidates.remove(candidates.stream()
                    .max(Comparator.comparingLong(MergeBudget::bytes))
                    .orElseThrow());
        }
        return null;
    }

    /**
     * A merge of the {@link #SMALL_PER_LEVEL} smallest segments of the lowest size level that has
     * that many small segments not merging already, if the budget pays for it. Segments under
     * the floor are left to tiered merging, which takes ten of them at a time: they are scanned,
     * which costs a search little, and merging them four at a time spent the budget that the
     * bigger ones then lacked (bench_ltm_checkpoints' 100-memory flushes: 31 segments left
     * instead of 13).
     */
    private MergeSpecification smallMerges(SegmentInfos infos, MergeContext context) {
        long largest = 0;
        for (SegmentCommitInfo s : infos) {
            largest = Math.max(largest, MergeBudget.bytes(s));
        }
        List<SegmentCommitInfo> small = new ArrayList<>();
        for (SegmentCommitInfo s : infos) {
            long bytes = MergeBudget.bytes(s);
            if (bytes >= FLOOR_BYTES && bytes < SMALL_SHARE * largest && !context.getMergingSegments().contains(s)) {
                small.add(s);
            }
        }
        if (small.size() < SMALL_PER_LEVEL) {
            return null;
        }
        long fewest = small.stream().mapToLong(MergeBudget::bytes).min().orElseThrow();
        Map<Integer, List<SegmentCommitInfo>> levels = new TreeMap<>();
        for (SegmentCommitInfo s : small) {
            levels.computeIfAbsent(sizeLevel(MergeBudget.bytes(s), fewest), level -> new ArrayList<>()).add(s);
        }
        for (List<SegmentCommitInfo> level : levels.values()) {
            if (level.size() >= SMALL_PER_LEVEL) {
                List<SegmentCommitInfo> merge = smallestFirst(level).subList(0, SMALL_PER_LEVEL);
                if (!budget.trySpend(merge)) {
                    return null;
                }
                MergeSpecification spec = new MergeSpecification();
                spec.add(new OneMerge(merge));
                return spec;
            }
        }
        return null;
    }

    /**
     * The size level of a segment of {@code bytes} among small segments of at least
     * {@code fewest}: the nearest whole power of {@link #SMALL_PER_LEVEL} of their ratio, so a
     * merge of a level's segments lands on the next level even when they were a little smaller
     * than the first of them.
     */
    static int sizeLevel(long bytes, long fewest) {
        return (int) Math.round(Math.log((double) bytes / fewest) / Math.log(SMALL_PER_LEVEL));
    }

    /** The leading segments whose committed bytes the budget holds. */
    private List<SegmentCommitInfo> affordablePrefix(List<SegmentCommitInfo> segments) {
        List<SegmentCommitInfo> out = new ArrayList<>();
        for (SegmentCommitInfo s : segments) {
            out.add(s);
            if (budget.cost(out) > budget.foldAvailable()) {
                out.remove(out.size() - 1);
                break;
            }
        }
        return out;
    }

    /** All segments, less the largest one if it has deletions. */
    private static List<SegmentCommitInfo> foldable(SegmentInfos infos, MergeContext context)
            throws IOException {
        List<SegmentCommitInfo> segments = new ArrayList<>(infos.asList());
        if (segments.size() < 2) {
            return segments;
        }
        SegmentCommitInfo largest = segments.stream()
                .max(Comparator.comparingInt(s -> s.info.maxDoc()))
                .orElseThrow();
        if (context.numDeletesToMerge(largest) > 0) {
            segments.remove(largest);
        }
        return segments;
    }

    private static List<SegmentCommitInfo> smallestFirst(List<SegmentCommitInfo> segments) {
        List<SegmentCommitInfo> sorted = new ArrayList<>(segments);
        sorted.sort(Comparator.comparingLong(MergeBudget::bytes));
        return sorted;
    }

    /** {@code infos} holding only {@code segments} (the same instances: the writer checks identity). */
    private static SegmentInfos subset(SegmentInfos infos, List<SegmentCommitInfo> segments) {
        if (segments.size() == infos.size()) {
            return infos;
        }
        SegmentInfos out = new SegmentInfos(infos.getIndexCreatedVersionMajor());
        for (SegmentCommitInfo s : segments) {
            out.add(s);
        }
        return out;
    }

    /** Tiered merging with {@link #FLOOR_SEGMENT_MB} and {@link #SEGMENTS_PER_TIER}, within {@code budget}. */
    static FoldingMergePolicy withTieredDefaults(MergeBudget budget) {
        TieredMergePolicy tiered = new TieredMergePolicy();
        tiered.setFloorSegmentMB(FLOOR_SEGMENT_MB);
        tiered.setSegmentsPerTier(SEGMENTS_PER_TIER);
        return new FoldingMergePolicy(tiered, budget);
    }
}
