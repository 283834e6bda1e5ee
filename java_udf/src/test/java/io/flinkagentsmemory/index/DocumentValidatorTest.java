package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Nothing is written unless every document of a batch passes; the first vector fixes the dimension. */
class DocumentValidatorTest {

    private static final int KG = 5;
    private static final float[] UNIT_2 = {0.6f, 0.8f};
    private static final float[] UNIT_3 = {0f, 0f, 1f};

    @Test
    void theFirstVectorFixesTheDimension() {
        DocumentValidator validator = new DocumentValidator(KG, -1);
        validator.validate(List.of(doc("a", "alice", KG, "m", null)));
        assertEquals(-1, validator.dimension(), "a document without a vector fixes nothing");
        validator.requireQueryDimension(7);
        validator.validate(List.of(doc("b", "alice", KG, "m", UNIT_2)));
        assertEquals(2, validator.dimension());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> validator.validate(List.of(doc("c", "alice", KG, "m", UNIT_3))));
        assertEquals("vector dimension 3 does not match the index's dimension 2", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> validator.requireQueryDimension(3));
        assertEquals("vector dimension 3 does not match the index's dimension 2", e.getMessage());
    }

    @Test
    void aFailingBatchFixesNoDimension() {
        DocumentValidator validator = new DocumentValidator(KG, -1);
        assertThrows(IllegalArgumentException.class, () -> validator.validate(List.of(
                doc("a", "alice", KG, "m", UNIT_2), doc("b", "alice", KG, "m", UNIT_3))));
        assertEquals(-1, validator.dimension());
        validator.validate(List.of(doc("c", "alice", KG, "m", UNIT_3)));
        assertEquals(3, validator.dimension());
    }

    @Test
    void aReopenedIndexKeepsItsDimension() {
        DocumentValidator validator = new DocumentValidator(KG, 3);
        assertThrows(IllegalArgumentException.class, () -> validator.validate(List.of(doc("a", "alice", KG, "m", UNIT_2))));
    }

    @Test
    void documentsOfAnotherKeyGroupAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DocumentValidator(KG, -1).validate(List.of(doc("a", "alice", KG + 1, "m", null))));
        assertEquals("document of key group 6 added to the index of key group 5", e.getMessage());
    }

    @Test
    void metadataMustBeAJsonObject() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DocumentValidator(KG, -1).validate(List.of(
                        doc("a", "alice", KG, "m", null, "[1, 2]", MemoryDocument.NEVER, null))));
        assertEquals("metadata must be a JSON object, got: [1, 2]", e.getMessage());
    }

    @Test
    void vectorsMustBeUnitLength() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DocumentValidator(KG, -1).validate(List.of(doc("a", "alice", KG, "m", new float[] {3f, 4f}))));
        assertTrue(e.getMessage().contains("norm is 5.0"), e.getMessage());
    }

    @Test
    void limitsMustBePositive() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DocumentValidator.requirePositive(0));
        assertEquals("limit must be positive, got 0", e.getMessage());
        DocumentValidator.requirePositive(1);
    }

    @Test
    void theDimensionIsReadFromTheIndex() throws Exception {
        try (InMemoryIndex index = new InMemoryIndex()) {
            assertEquals(-1, DocumentValidator.dimensionOf(index.searcher().getIndexReader()));
            index.add(doc("a", "alice", KG, "m", null));
            assertEquals(-1, DocumentValidator.dimensionOf(index.searcher().getIndexReader()));
            index.add(doc("b", "alice", KG, "m", UNIT_3));
            assertEquals(3, DocumentValidator.dimensionOf(index.searcher().getIndexReader()));
        }
    }
}
