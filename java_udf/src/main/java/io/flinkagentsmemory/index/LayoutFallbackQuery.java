package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.Objects;
import java.util.function.Supplier;

import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.TermQuery;

/**
 * A metadata condition that reads fields of layout 2 ({@link MetadataFields}), which documents
 * indexed before it (restored from an older checkpoint) lack. It rewrites to the layout-2 query
 * alone while every document of the index has the layout; otherwise documents without the layout
 * are matched by {@code legacy}, an approximation over the fields they do have, built only then.
 */
final class LayoutFallbackQuery extends Query {

    private final Query current;
    private final String legacyName;
    private final Supplier<Query> legacyFactory;
    private Query legacy;

    /**
     * @param legacyName identifies the legacy query (for equals), which {@code legacyFactory}
     *     builds on demand
     */
    LayoutFallbackQuery(Query current, String legacyName, Supplier<Query> legacyFactory) {
        this.current = current;
        this.legacyName = legacyName;
        this.legacyFactory = legacyFactory;
    }

    @Override
    public Query rewrite(IndexSearcher searcher) throws IOException {
        IndexReader reader = searcher.getIndexReader();
        // docFreq counts deleted documents too: an old document deleted but not merged away
        // keeps the fallback, which is slower, never wrong.
        if (reader.docFreq(MetadataFields.LAYOUT_2) == reader.maxDoc()) {
            return current;
        }
        Query beforeLayout2 = new BooleanQuery.Builder()
                .add(legacy(), Occur.FILTER)
                .add(new TermQuery(MetadataFields.LAYOUT_2), Occur.MUST_NOT)
                .build();
        return new BooleanQuery.Builder()
                .add(current, Occur.SHOULD)
                .add(beforeLayout2, Occur.SHOULD)
                .build();
    }

    private synchronized Query legacy() {
        if (legacy == null) {
            legacy = legacyFactory.get();
        }
        return legacy;
    }

    @Override
    public void visit(QueryVisitor visitor) {
        current.visit(visitor.getSubVisitor(Occur.MUST, this));
    }

    @Override
    public String toString(String field) {
        return "layout2(" + current.toString(field) + " | before: " + legacyName + ")";
    }

    @Override
    public boolean equals(Object other) {
        return sameClassAs(other)
                && current.equals(((LayoutFallbackQuery) other).current)
                && legacyName.equals(((LayoutFallbackQuery) other).legacyName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(classHash(), current, legacyName);
    }
}
