"""Ingest files into a knowledge source: load, chunk with overlap, embed, upsert.

Idempotent: a chunk's id is the hash of its (whitespace-normalised) text, so re-ingesting the
same files finds every id already stored and skips it (nothing is embedded or sent again);
an edited paragraph gets a new id and is added (the old chunk stays until the source is rebuilt).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..models.embedders import Embedder
from .base import KnowledgeBase
from .embedding import EMBEDDER_KEY, embedder_tag
from .errors import EmbedderMismatchError

DEFAULT_CHUNK_SIZE = 800
DEFAULT_OVERLAP = 120
_HEADING = re.compile(r"^#{1,6}\s+(.*\S)\s*$", re.MULTILINE)
_BREAKS = ("\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ")


@dataclass(frozen=True)
class Chunk:
    id: str
    text: str
    metadata: dict[str, Any]


@dataclass
class IngestReport:
    source: str
    files: int = 0
    chunks: int = 0
    added: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (f"{self.source}: {self.files} file(s), {self.chunks} chunk(s): "
                f"{self.added} added, {self.skipped} already there")


def chunk_id(text: str) -> str:
    """Content hash of a chunk: the same text (up to whitespace) always gets the same id."""
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:32]


def chunk_text(text: str, chunk_size: int = DEFAULT_CHUNK_SIZE,
               overlap: int = DEFAULT_OVERLAP) -> list[str]:
    """Split ``text`` into chunks of at most ``chunk_size`` characters, consecutive chunks
    sharing about ``overlap`` characters. Cuts prefer paragraph, line, sentence, then word
    boundaries (in the second half of a window); a chunk never starts inside a word unless a
    word is longer than a chunk."""
    if chunk_size < 20:
        raise ValueError(f"chunk_size must be >= 20, got {chunk_size}")
    if not 0 <= overlap < chunk_size // 2:
        raise ValueError(f"overlap must be in [0, chunk_size/2), got {overlap}")
    text = text.strip()
    if not text:
        return []
    chunks: list[str] = []
    start, n = 0, len(text)
    while start < n:
        end = min(start + chunk_size, n)
        if end < n:
            window = text[start:end]
            for sep in _BREAKS:
                cut = window.rfind(sep, chunk_size // 2)
                if cut != -1:
                    end = start + cut + len(sep)
                    break
        piece = text[start:end].strip()
        if piece:
            chunks.append(piece)
        if end >= n:
            break
        nxt = max(end - overlap, start + 1)
        if overlap and not text[nxt - 1].isspace():
            space = text.find(" ", nxt, end)   # start the overlap at a word
            nxt = space + 1 if space != -1 else end
        start = nxt
        while start < n and text[start].isspace():
            start += 1
    return chunks


def _clean(metadata: dict[str, Any]) -> dict[str, Any]:
    """Chroma metadata values are str, int, float or bool."""
    out: dict[str, Any] = {}
    for k, v in metadata.items():
        if isinstance(v, (str, int, float, bool)):
            out[str(k)] = v
        elif v is not None:
            out[str(k)] = json.dumps(v, sort_keys=True, default=str)
    return out


def _markdown_sections(text: str) -> list[tuple[str | None, str]]:
    marks = list(_HEADING.finditer(text))
    if not marks:
        return [(None, text)]
    sections: list[tuple[str | None, str]] = []
    if text[: marks[0].start()].strip():
        sections.append((None, text[: marks[0].start()]))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        sections.append((m.group(1), text[m.start():end]))
    return sections


def load_chunks(path: Path, chunk_size: int = DEFAULT_CHUNK_SIZE,
                overlap: int = DEFAULT_OVERLAP, name: str | None = None) -> list[Chunk]:
    """Chunks of one file: ``.md`` by heading sections, ``.jsonl``/``.ndjson`` one record per
    line (text in ``text`` or ``content``, other fields become metadata), anything else as
    plain text."""
    name = name or path.name
    raw = path.read_text(encoding="utf-8")
    records: list[tuple[str, dict[str, Any]]] = []
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        for lineno, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{lineno}: not JSON: {e}") from e
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{lineno}: expected a JSON object")
            text = record.pop("text", None) or record.pop("content", None)
            if not isinstance(text, str):
                raise ValueError(f"{path}:{lineno}: needs a 'text' (or 'content') string")
            meta = record.pop("metadata", None)
            record.update(meta if isinstance(meta, dict) else {})
            records.append((text, {**record, "line": lineno}))
    elif suffix in (".md", ".markdown"):
        for title, section in _markdown_sections(raw):
            records.append((section, {"title": title} if title else {}))
    else:
        records.append((raw, {}))
    chunks: list[Chunk] = []
    for text, meta in records:
        for piece in chunk_text(text, chunk_size, overlap):
            chunks.append(Chunk(chunk_id(piece), piece,
                                _clean({"file": name, **meta, "chunk": len(chunks)})))
    return chunks


class TextProgress:
    """A progress bar on a terminal (``\\r``-redrawn); one line per file elsewhere."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, label: str, done: int, total: int) -> None:
        if self.tty:
            filled = self.width * done // max(total, 1)
            bar = "#" * filled + "-" * (self.width - filled)
            end = "\n" if done >= total else ""
            self.stream.write(f"\r{label[:40]:<40} [{bar}] {done}/{total}{end}")
            self.stream.flush()
        elif done >= total:
            self.stream.write(f"{label}: {done}/{total} chunks\n")
            self.stream.flush()


Progress = Callable[[str, int, int], None]


def ensure_source(kb: KnowledgeBase, source: str, embedder: Embedder,
                  extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Create the source recording ``embedder``'s tag, or check an existing one's tag."""
    tag = embedder_tag(embedder)
    info = kb._call(f"get source {source!r}", lambda: kb.backend.get_source(source))
    if info is None:
        meta = {EMBEDDER_KEY: tag, "dimension": embedder.dim,
                "created_by": "flink_agents_memory", **(extra or {})}
        return kb._call(f"create source {source!r}",
                        lambda: kb.backend.create_source(source, meta))
    have = info["metadata"].get(EMBEDDER_KEY)
    if have != tag:
        raise EmbedderMismatchError(
            f"knowledge source {source!r} at {kb.service_url} was ingested with embedder "
            f"{have!r}; ingesting with {tag!r} would mix vector spaces: use --embedder "
            f"matching {have!r} or another --source")
    return info


def ingest_files(kb: KnowledgeBase, source: str, files: Iterable[Path], embedder: Embedder,
                 chunk_size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_OVERLAP,
                 batch_size: int = 64, progress: Progress | None = None) -> IngestReport:
    """Ingest ``files`` into ``source`` (created if missing); chunks already stored (same
    content hash) are skipped. Raises KnowledgeUnavailableError if the service is down."""
    report = IngestReport(source)
    ensure_source(kb, source, embedder, {"chunk_size": chunk_size, "overlap": overlap})
    for path in files:
        chunks = load_chunks(Path(path), chunk_size, overlap)
        report.files += 1
        unique = list({c.id: c for c in chunks}.values())
        report.chunks += len(unique)
        done = 0
        if progress:
            progress(str(path), 0, len(unique))
        for i in range(0, len(unique), batch_size):
            batch = unique[i:i + batch_size]
            ids = [c.id for c in batch]
            have = kb._call("check ids", lambda ids=ids: kb.backend.existing_ids(source, ids))
            new = [c for c in batch if c.id not in have]
            report.skipped += len(batch) - len(new)
            if new:
                vectors = embedder.embed([c.text for c in new])
                payload = ([c.id for c in new], [[float(x) for x in v] for v in vectors],
                           [c.text for c in new], [c.metadata for c in new])
                kb._call("upsert", lambda p=payload: kb.backend.upsert(source, *p))
                report.added += len(new)
            done += len(batch)
            if progress:
                progress(str(path), done, len(unique))
    return report
