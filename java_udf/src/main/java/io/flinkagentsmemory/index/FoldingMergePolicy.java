package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.apache.lucene.index.FilterMergePolicy;
import org.apache.lucene.index.MergeTrigger;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.TieredMergePolicy;

/**
 * Lucene's tiered merging while the index is written, plus one "fold" of the remaining segments
 * into one once the index has gone quiet ({@link #requestFold()}).
 *
 * <p>Every segment has its own HNSW graph and a kNN query searches each of them. Tiered merging
 * refuses a merge that does not grow its biggest input by half (against quadratic rewriting
 * under steady writes), so a 100k-vector index loaded in small runs keeps 3 to 5 segments, and
 * a search pays for each. A fold while nothing is written costs one rewrite of the largest
 * segment's files, but Lucene seeds the merged graph with the largest segment's graph and
 * inserts only the other segments' vectors. That reuse needs the largest segment to have no deletions, so when it has
 * some, only the other segments are folded (into one beside it): rebuilding the big graph costs
 * minutes of CPU, and tiered merging reclaims its deletions once they pass its threshold.
 */
final class FoldingMergePolicy extends FilterMergePolicy {

    /**
     * At 100k vectors in one key, 65 segments (Lucene's default merge policy under per-run
     * refreshes) cost ~30 ms per kNN query against ~1.5 ms for one or two. So segments up to this
     * size all count as equal ("floor") and {@link #SEGMENTS_PER_TIER} are allowed per tier.
     * Lucene still refuses a merge that does not grow its biggest input by half (no quadratic
     * rewriting), so while it is written the index keeps a few segments of falling sizes; once
     * quiet for {@link KeyGroupIndex#DEFAULT_QUIET_MILLIS} they are folded into one.
     */
    static final double FLOOR_SEGMENT_MB = 1024;

    static final double SEGMENTS_PER_TIER = 2;

    private volatile boolean foldWanted;

    FoldingMergePolicy(TieredMergePolicy tiered) {
        super(tiered);
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
        MergeSpecification tiered = super.findMerges(trigger, infos, context);
        if (tiered != null || !foldWanted || !context.getMergingSegments().isEmpty()) {
            return tiered;
        }
        foldWanted = false;
        List<SegmentCommitInfo> fold = foldable(infos, context);
        if (fold.size() < 2) {
            return null;
        }
        MergeSpecification spec = new MergeSpecification();
        spec.add(new OneMerge(fold));
        return spec;
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

    /** Tiered merging with {@link #FLOOR_SEGMENT_MB} and {@link #SEGMENTS_PER_TIER}. */
    static FoldingMergePolicy withTieredDefaults() {
        TieredMergePolicy tiered = new TieredMergePolicy();
        tiered.setFloorSegmentMB(FLOOR_SEGMENT_MB);
        tiered.setSegmentsPerTier(SEGMENTS_PER_TIER);
        return new FoldingMergePolicy(tiered);
    }
}
