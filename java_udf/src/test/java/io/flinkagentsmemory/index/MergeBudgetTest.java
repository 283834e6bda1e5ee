package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.KeepOnlyLastCommitDeletionPolicy;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.Test;

/**
 * Flushes earn credit, only committed segments cost it, restored segments earn nothing, and
 * credit not spent within {@link MergeBudget#WINDOW} commits expires.
 */
class MergeBudgetTest {

    private final Random random = new Random(5);

    @Test
    void flushesEarnCreditAndOnlyCommittedSegmentsCostIt() throws Exception {
        MergeBudget budget = new MergeBudget();
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory(); IndexWriter writer = writer(dir, budget)) {
            flushSegment(writer, 0);
            SegmentInfos infos = infos(writer);
            budget.observe(infos);
            long flushed = MergeBudget.bytes(infos.info(0));
            assertEquals(MergeBudget.CREDIT * flushed, budget.available(), 1e-6);
            assertEquals(0, budget.cost(infos.asList()), "not committed: a merge uploads it once");
            budget.observe(infos);
            assertEquals(MergeBudget.CREDIT * flushed, budget.available(), 1e-6, "credited once");

            writer.commit();
            flushSegment(writer, 100);
            infos = infos(writer);
            budget.observe(infos);
            assertEquals(flushed, budget.cost(infos.asList()), "the committed segment costs its bytes");
            assertTrue(budget.trySpend(List.of(infos.info(0))));
            assertEquals(MergeBudget.CREDIT * (flushed + MergeBudget.bytes(infos.info(1))) - flushed,
                    budget.available(), 1e-6);
        }
    }

    @Test
    void aCommitTakingSegmentsBeingMergedChargesThem() throws Exception {
        MergeBudget budget = new MergeBudget();
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory(); IndexWriter writer = writer(dir, budget)) {
            flushSegment(writer, 0);
            SegmentInfos infos = infos(writer);
            budget.observe(infos);
            double before = budget.available();
            assertTrue(budget.trySpend(infos.asList()), "free: nothing committed");
            assertEquals(before, budget.available(), 1e-6);
            writer.commit();
            assertEquals(before - MergeBudget.bytes(infos.info(0)), budget.available(), 1e-6,
                    "the merge's output will upload the committed input again");
        }
    }

    @Test
    void segmentsTheIndexOpensWithEarnNothingAndCostTheirBytes() throws Exception {
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
            try (IndexWriter writer = writer(dir, new MergeBudget())) {
                flushSegment(writer, 0);
            }
            MergeBudget budget = new MergeBudget();
            try (IndexWriter writer = writer(dir, budget)) {
                SegmentInfos infos = infos(writer);
                budget.observe(infos);
                assertEquals(0, budget.available(), 1e-6);
                SegmentCommitInfo restored = infos.info(0);
                assertEquals(MergeBudget.bytes(restored), budget.cost(List.of(restored)));
                assertFalse(budget.trySpend(List.of(restored)));
                assertFalse(budget.trySpendFold(List.of(restored)), "one segment: nothing to fold");
            }
        }
    }

    @Test
    void anIndexOpenedWithSeveralSegmentsMayFoldThemOnce() throws Exception {
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
            try (IndexWriter writer = writer(dir, new MergeBudget())) {
                flushSegment(writer, 0);
                flushSegment(writer, 100);
            }
            MergeBudget budget = new MergeBudget();
            try (IndexWriter writer = writer(dir, budget)) {
                SegmentInfos infos = infos(writer);
                budget.observe(infos);
                assertFalse(budget.trySpend(infos.asList()), "merges earn nothing from restored segments");
                assertTrue(budget.trySpendFold(infos.asList()));
                assertFalse(budget.trySpendFold(infos.asList()), "once");
            }
        }
    }

    @Test
    void unspentCreditExpiresAfterTheWindow() throws Exception {
        MergeBudget budget = new MergeBudget();
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory(); IndexWriter writer = writer(dir, budget)) {
            flushSegment(writer, 0);
            budget.observe(infos(writer));
            writer.commit();
            assertTrue(budget.available() > 0);
            for (int i = 0; i < MergeBudget.WINDOW; i++) {
                writer.setLiveCommitData(Map.of("commit", Integer.toString(i)).entrySet());
                writer.commit();
            }
            assertEquals(0, budget.available(), 1e-6, "the flush's credit expired");
        }
    }

    /** A writer that merges nothing by itself, telling {@code budget} what each commit holds. */
    private static IndexWriter writer(ByteBuffersDirectory dir, MergeBudget budget) throws Exception {
        return new IndexWriter(dir, new IndexWriterConfig(new StandardAnalyzer())
                .setMergePolicy(NoMergePolicy.INSTANCE)
                .setIndexDeletionPolicy(budget.tracking(new KeepOnlyLastCommitDeletionPolicy())));
    }

    /** The writer's segments as a near-real-time reader sees them (flushing first). */
    private static SegmentInfos infos(IndexWriter writer) throws Exception {
        SegmentInfos infos = new SegmentInfos(Version.LATEST.major);
        try (DirectoryReader reader = DirectoryReader.open(writer)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                infos.add(((SegmentReader) leaf.reader()).getSegmentInfo());
            }
        }
        return infos;
    }

    private void flushSegment(IndexWriter writer, int first) throws Exception {
        for (int i = first; i < first + 50; i++) {
            writer.addDocument(DocumentSchema.toLucene(doc("d" + i, "k", 0, "m" + i, unitVector(random, 8))));
        }
        writer.flush();
    }
}
