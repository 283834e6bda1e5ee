package io.flinkagentsmemory.index;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SegmentScaledKnnQueryTest {

    @Test
    void largestSegmentGetsTheFullBeam() {
        assertEquals(100, SegmentScaledKnnQuery.beam(100, 10, 80_000, 80_000));
    }

    @Test
    void smallerSegmentsGetTheSquareRootShare() {
        assertEquals(50, SegmentScaledKnnQuery.beam(100, 10, 20_000, 80_000));
        assertEquals(25, SegmentScaledKnnQuery.beam(100, 10, 5_000, 80_000));
    }

    @Test
    void neverBelowTheLimitNorAboveTheCandidates() {
        assertEquals(10, SegmentScaledKnnQuery.beam(100, 10, 10, 80_000));
        assertEquals(40, SegmentScaledKnnQuery.beam(40, 40, 10, 80_000));
    }
}
