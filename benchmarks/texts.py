"""Real English text for the benchmarks that embed: the sentences of this repository's own
documentation (README.md and docs/*.md, not the generated benchmarks.md) in a fixed order, so
every machine (and CI, which cannot download a dataset) embeds the same text."""

from __future__ import annotations

import re

from .common import ROOT

#: Sentence ends, and the semicolons and colons of the docs' long sentences (memory-sized parts).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*(])|(?<=[;:])\s+")
_MARKUP = re.compile(r"[`*\[\]]|\((?:https?:|docs/|\.\./)[^)]*\)")


def doc_sentences(n: int, min_chars: int = 30, max_chars: int = 300) -> list[str]:
    """``n`` sentences of prose (tables, code blocks and headings skipped); repeats the list
    with a numbered suffix when the docs hold fewer, so the texts stay distinct."""
    found: list[str] = []
    seen: set[str] = set()
    docs = [p for p in sorted((ROOT / "docs").glob("*.md")) if p.name != "benchmarks.md"]
    for path in [ROOT / "README.md", *docs]:  # benchmarks.md: tables, regenerated
        for sentence in _prose_sentences(path.read_text(encoding="utf-8")):
            if min_chars <= len(sentence) <= max_chars and sentence not in seen:
                seen.add(sentence)
                found.append(sentence)
    if not found:
        raise RuntimeError("no prose sentences found in README.md and docs/*.md")
    return [found[i % len(found)] + (f" ({i // len(found) + 1})" if i >= len(found) else "")
            for i in range(n)]


def _prose_sentences(markdown: str) -> list[str]:
    sentences: list[str] = []
    in_code = False
    paragraph: list[str] = []
    for line in [*markdown.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith("```"):
            in_code = not in_code
            continue
        if in_code or stripped.startswith(("|", "#", "<", ">")):
            continue
        if stripped:
            paragraph.append(stripped.lstrip("-* ").strip())
            continue
        text = _MARKUP.sub("", " ".join(paragraph))
        paragraph = []
        sentences += [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
    return sentences
