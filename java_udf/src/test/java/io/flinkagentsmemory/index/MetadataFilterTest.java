package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.automaton.Automaton;
import org.apache.lucene.util.automaton.Operations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** mem0's filter grammar on the index: each operator, nesting, documents of the older layout. */
class MetadataFilterTest {

    private static final int KG = 3;

    private InMemoryIndex index;

    @BeforeEach
    void open() throws IOException {
        index = new InMemoryIndex().add(
                alice("a", "{\"topic\":\"Food\",\"stars\":5,\"public\":true,\"tags\":[\"x\",\"Yak\"],"
                        + "\"nested\":{\"k\":1},\"note\":\"Meeting NOTES\"}"),
                alice("b", "{\"topic\":\"work\",\"stars\":2.5,\"public\":false,\"tags\":[\"y\"],\"note\":null,"
                        + "\"title\":\"true\"}"),
                alice("c", "{}"),
                alice("d", "{\"topic\":\"food court\",\"stars\":3,\"tags\":[],\"street\":\"Straße \\u212A\"}"),
                // Another key with the same metadata: no filter may reach it.
                doc("e", "bob", KG, "m", null, "{\"topic\":\"Food\",\"stars\":5,\"public\":true}",
                        MemoryDocument.NEVER, "2024-01-01T00:00:00Z"));
    }

    @AfterEach
    void close() throws IOException {
        index.close();
    }

    @Test
    void equalityAndItsExplicitForm() throws Exception {
        assertEquals(List.of("a"), ids("{\"topic\":\"Food\"}"));
        assertEquals(List.of("a"), ids("{\"topic\":{\"eq\":\"Food\"}}"));
        assertEquals(List.of("a"), ids("{\"stars\":{\"eq\":5.0}}"));
        assertEquals(List.of("b"), ids("{\"public\":{\"eq\":false}}"));
        assertEquals(List.of(), ids("{\"topic\":{\"eq\":\"*\"}}"), "eq '*' is the literal string");
    }

    @Test
    void notInMatchesDocumentsWithoutTheFieldLikeNe() throws Exception {
        assertEquals(List.of("c", "d"), ids("{\"topic\":{\"nin\":[\"Food\",\"work\"]}}"));
        assertEquals(List.of("b", "c", "d"), ids("{\"tags\":{\"nin\":[\"x\"]}}"), "no element of the list is x");
        assertEquals(List.of("a", "b", "c", "d"), ids("{\"topic\":{\"nin\":[]}}"));
        assertEquals(ids("{\"topic\":{\"ne\":\"work\"}}"), ids("{\"topic\":{\"nin\":[\"work\"]}}"));
        assertEquals(List.of("b", "c"), ids("{\"stars\":{\"nin\":[5,3.0]}}"));
    }

    @Test
    void containsReadsStringsOnly() throws Exception {
        assertEquals(List.of("a", "d"), ids("{\"topic\":{\"contains\":\"oo\"}}"));
        assertEquals(List.of("a"), ids("{\"topic\":{\"contains\":\"Foo\"}}"), "case-sensitive");
        assertEquals(List.of("a"), ids("{\"topic\":{\"contains\":\"Food\"}}"), "the whole value");
        assertEquals(List.of("a"), ids("{\"tags\":{\"contains\":\"a\"}}"), "any element of a list");
        assertEquals(List.of("a"), ids("{\"note\":{\"contains\":\"g N\"}}"));
        assertEquals(List.of("b"), ids("{\"title\":{\"contains\":\"ru\"}}"), "the string 'true'");
        assertEquals(List.of(), ids("{\"public\":{\"contains\":\"ru\"}}"), "not the boolean true");
        assertEquals(List.of(), ids("{\"stars\":{\"contains\":\"5\"}}"), "not the number 5");
        assertEquals(List.of(), ids("{\"nested\":{\"contains\":\"k\"}}"), "not an object");
    }

    @Test
    void icontainsIgnoresCaseLetterByLetter() throws Exception {
        assertEquals(List.of("a", "d"), ids("{\"topic\":{\"icontains\":\"FOOD\"}}"));
        assertEquals(List.of("a"), ids("{\"note\":{\"icontains\":\"meeting notes\"}}"));
        assertEquals(List.of("a"), ids("{\"tags\":{\"icontains\":\"yAK\"}}"));
        assertEquals(List.of("d"), ids("{\"street\":{\"icontains\":\"STRAẞE k\"}}"), "capital sharp s, Kelvin sign");
        assertEquals(List.of(), ids("{\"street\":{\"icontains\":\"STRASSE\"}}"), "one letter never meets two");
        assertEquals(List.of(), ids("{\"public\":{\"icontains\":\"TRUE\"}}"));
    }

    @Test
    void wildcardMeansPresentAndNotNull() throws Exception {
        assertEquals(List.of("a"), ids("{\"note\":\"*\"}"), "b's note is null");
        assertEquals(List.of("a"), ids("{\"nested\":\"*\"}"), "an object is a value");
        assertEquals(List.of("a", "b", "d"), ids("{\"tags\":\"*\"}"), "so is an empty list");
        assertEquals(List.of("a", "b", "d"), ids("{\"stars\":\"*\"}"));
        assertEquals(List.of("b", "c"), ids("{\"NOT\":[{\"topic\":{\"contains\":\"ood\"}}]}"));
        assertEquals(List.of("c"), ids("{\"NOT\":[{\"topic\":\"*\"}]}"));
    }

    @Test
    void andOrNotNest() throws Exception {
        assertEquals(List.of("a"), ids("{\"AND\":[{\"topic\":\"Food\"},{\"stars\":{\"gte\":5}}]}"));
        assertEquals(List.of(), ids("{\"AND\":[{\"topic\":\"Food\"},{\"stars\":{\"lt\":5}}]}"));
        assertEquals(List.of("b", "d"), ids("{\"OR\":[{\"topic\":\"work\"},{\"stars\":3}]}"));
        assertEquals(List.of("b", "c"), ids("{\"NOT\":[{\"topic\":\"Food\"},{\"stars\":3}]}"), "none of them");
        assertEquals(List.of("a", "b"), ids("{\"OR\":[{\"AND\":[{\"topic\":{\"icontains\":\"food\"}},"
                + "{\"NOT\":[{\"stars\":3}]}]},{\"public\":false}]}"));
        assertEquals(List.of("a", "b", "c", "d"), ids("{\"OR\":[{\"NOT\":[{\"topic\":\"Food\"}]},{\"stars\":5}]}"));
        assertEquals(List.of("a", "c", "d"), ids("{\"OR\":[{\"topic\":{\"ne\":\"work\"}}]}"), "a lone ne in OR");
        assertEquals(List.of("d"), ids("{\"tags\":\"*\",\"NOT\":[{\"public\":\"*\"}]}"), "fields and logic AND-ed");
        assertEquals(List.of("a"), ids("{\"NOT\":[{\"NOT\":[{\"topic\":\"Food\"}]}]}"));
        String deep = "{\"topic\":\"Food\"}";
        for (int i = 0; i < MetadataFilter.MAX_DEPTH; i++) {
            deep = "{\"" + (i % 2 == 0 ? "AND" : "OR") + "\":[" + deep + "]}";
        }
        assertEquals(List.of("a"), ids(deep));
    }

    @Test
    void noFilterReachesAnotherKey() throws Exception {
        List<String> everything = List.of("a", "b", "c", "d");
        for (String tautology : List.of(
                "{\"OR\":[{\"topic\":\"Food\"},{\"NOT\":[{\"topic\":\"Food\"}]}]}",
                "{\"NOT\":[{\"owner\":\"bob\"}]}",
                "{\"topic\":{\"nin\":[\"nothing\"]}}",
                "{\"OR\":[{\"stars\":{\"gte\":0}},{\"NOT\":[{\"stars\":\"*\"}]}]}")) {
            assertEquals(everything, ids(tautology), tautology);
        }
        IndexSearcher s = index.searcher();
        assertEquals(1, s.count(KeyFilters.live(s, "bob", 0, MetadataFilter.parse("{\"NOT\":[{\"stars\":3}]}"))));
        assertEquals(0, s.count(KeyFilters.live(s, "carol", 0,
                MetadataFilter.parse("{\"OR\":[{\"topic\":\"Food\"},{\"NOT\":[{\"topic\":\"Food\"}]}]}"))));
    }

    @Test
    void documentsOfTheOlderLayoutKeepTheirOperatorsAndApproximateTheNewOnes() throws Exception {
        index.writer.addDocument(olderLayout(alice("o", "{\"topic\":\"Food\",\"stars\":5,\"flag\":true,"
                + "\"tags\":[\"x\"],\"obj\":{\"k\":1}}")));
        index.writer.addDocument(olderLayout(alice("p", "{\"topic\":\"tea\",\"stars\":1}")));
        assertEquals(List.of("a", "o"), ids("{\"topic\":\"Food\"}"));
        assertEquals(List.of("a", "o"), ids("{\"stars\":{\"gte\":5}}"));
        assertEquals(List.of("a", "b", "o"), ids("{\"tags\":{\"in\":[\"x\",\"y\"]}}"));
        assertEquals(List.of("b", "c", "d", "p"), ids("{\"topic\":{\"ne\":\"Food\"}}"));
        assertEquals(List.of("b", "c", "d", "p"), ids("{\"topic\":{\"nin\":[\"Food\"]}}"));
        assertEquals(List.of("a", "d", "o"), ids("{\"topic\":{\"contains\":\"oo\"}}"));
        assertEquals(List.of("a", "d", "o"), ids("{\"topic\":{\"icontains\":\"FOO\"}}"));
        assertEquals(List.of("o"), ids("{\"flag\":{\"contains\":\"ru\"}}"), "there, booleans and numbers too");
        assertEquals(List.of("a", "b", "d", "o", "p"), ids("{\"stars\":\"*\"}"));
        assertEquals(List.of(), ids("{\"obj\":\"*\"}"), "an object was not indexed before");
        assertEquals(List.of("b", "c", "d", "p"), ids("{\"NOT\":[{\"topic\":\"Food\"}]}"));
        assertEquals(List.of("c"), ids("{\"NOT\":[{\"topic\":\"*\"}]}"));
    }

    @Test
    void theFallbackIsLeftOutOnceEveryDocumentHasTheLayout() throws Exception {
        Query present = MetadataFilter.parse("{\"topic\":\"*\"}").queries().get(0);
        assertInstanceOf(TermQuery.class, index.searcher().rewrite(present));
        index.writer.addDocument(olderLayout(alice("o", "{\"topic\":\"Food\"}")));
        assertInstanceOf(BooleanQuery.class, index.searcher().rewrite(present));
        // Rewriting the document (an update does) gives it the layout.
        index.add(alice("o", "{\"topic\":\"Food\"}"));
        index.writer.forceMergeDeletes();
        assertInstanceOf(TermQuery.class, index.searcher().rewrite(present));
    }

    @Test
    void malformedFiltersAreRefusedNamingTheFieldOrOperator() {
        String[][] cases = {
            {"{\"topic\":{\"near\":1}}", "unknown filter operator 'near' on field 'topic'"},
            {"{\"topic\":{}}", "field 'topic' is an empty object"},
            {"{\"topic\":{\"nin\":\"x\"}}", "'nin' on field 'topic' needs a JSON array"},
            {"{\"topic\":{\"nin\":[{}]}}", "on field 'topic' must be a string, number or boolean"},
            {"{\"topic\":{\"contains\":3}}", "'contains' on field 'topic' needs a non-empty string"},
            {"{\"topic\":{\"icontains\":\"\"}}", "'icontains' on field 'topic' needs a non-empty string"},
            {"{\"topic\":{\"contains\":\"" + "x".repeat(257) + "\"}}", "257 chars, over 256"},
            {"{\"topic\":{\"eq\":[1]}}", "on field 'topic' must be a string, number or boolean"},
            {"{\"AND\":{\"topic\":\"x\"}}", "'AND' needs a non-empty list"},
            {"{\"OR\":[]}", "'OR' needs a non-empty list"},
            {"{\"NOT\":[\"x\"]}", "'NOT' holds \"x\""},
            {"{\"OR\":[{}]}", "each item must be a non-empty filter object"},
            {"{\"OR\":[{\"AND\":[{\"t\":{\"gt\":\"x\"}}]}]}", "'gt' on field 't' needs a number"},
        };
        for (String[] c : cases) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MetadataFilter.parse(c[0]), c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
        }
        String deep = "{\"t\":1}";
        for (int i = 0; i <= MetadataFilter.MAX_DEPTH; i++) {
            deep = "{\"NOT\":[" + deep + "]}";
        }
        String tooDeep = deep;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MetadataFilter.parse(tooDeep));
        assertTrue(e.getMessage().contains("deeper than 256"), e.getMessage());
    }

    @Test
    void substringAutomataMatchStringContains() {
        Random random = new Random(11);
        int[] letters = "aAbBkKΣσςßẞéÉ\u212A😀".codePoints().toArray();
        for (int t = 0; t < 20_000; t++) {
            String text = randomText(random, letters, 1 + random.nextInt(4));
            String value = randomText(random, letters, random.nextInt(10));
            boolean ignoreCase = random.nextBoolean();
            Automaton a = Substrings.containing(text, ignoreCase);
            boolean expected = ignoreCase ? folded(value).contains(folded(text)) : value.contains(text);
            assertEquals(expected, Operations.run(a, value), text + " in " + value + " ignoring case " + ignoreCase);
            assertTrue(a.isDeterministic());
        }
        // A periodic text is where determinizing .*text.* blows up; the longest allowed builds.
        for (String unit : List.of("a", "ab", "aab", "Ab", "ßs")) {
            String text = unit.repeat(MetadataFilter.MAX_SUBSTRING_CHARS).substring(0, MetadataFilter.MAX_SUBSTRING_CHARS);
            MetadataFilter.parse("{\"f\":{\"icontains\":\"" + text + "\",\"contains\":\"" + text + "\"}}");
        }
    }

    @Test
    void codePointsPastThePlanesWithCaseHaveNone() {
        for (int c = Substrings.CASELESS_FROM; c <= Character.MAX_CODE_POINT; c++) {
            if (Substrings.fold(c) != c) {
                throw new AssertionError(Integer.toHexString(c) + " folds to " + Integer.toHexString(Substrings.fold(c)));
            }
        }
    }

    private static String folded(String s) {
        return s.codePoints().map(Substrings::fold)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
    }

    private static String randomText(Random random, int[] letters, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.appendCodePoint(letters[random.nextInt(letters.length)]);
        }
        return b.toString();
    }

    private static MemoryDocument alice(String id, String metadata) {
        return doc(id, "alice", KG, "m", null, metadata, MemoryDocument.NEVER, "2024-01-01T00:00:00Z");
    }

    /** {@code m} as the index laid it out before layout 2: without the fields it added. */
    private static Document olderLayout(MemoryDocument m) {
        Document d = DocumentSchema.toLucene(m);
        Document old = new Document();
        for (IndexableField f : d.getFields()) {
            boolean added = f.name().equals(MetadataFields.KEYS) || f.name().equals(MetadataFields.LAYOUT_2.field())
                    || f.name().startsWith("s.");
            if (!added) {
                old.add(f);
            }
        }
        return old;
    }

    /** Alice's documents passing {@code json}, by id. */
    private List<String> ids(String json) throws IOException {
        IndexSearcher s = index.searcher();
        List<String> out = new ArrayList<>();
        for (ScoreDoc sd : s.search(KeyFilters.live(s, "alice", 0, MetadataFilter.parse(json)), 100).scoreDocs) {
            out.add(s.storedFields().document(sd.doc).get(DocumentSchema.ID));
        }
        return out.stream().sorted().toList();
    }
}
