package io.flinkagentsmemory.index;

/** A search result: the document and its score on the search mode's scale. */
public record SearchHit(MemoryDocument document, double score) {}
