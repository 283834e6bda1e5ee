"""Consolidation: near-duplicate memories of a key become one.

Each memory written since the last pass is embedded and searched for among the key's memories
(vector mode). Neighbours at least ``threshold`` similar form a group. The LLM, when there is
one, merges the group into one text kept under one of its ids; without it the newest is kept
as it is. Either way the others are deleted with an audit entry naming the survivor, and the
survivor records them in ``metadata["merged_from"]``. The LLM sees the memories under small ids
("0", "1", ...): an answer naming another id, junk JSON or a failed call is a logged skip and
the group stays as it was.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import MemoryValueError
from .llm_steps import LLMSteps
from .maintenance_config import Consolidation
from .maintenance_llm import ask_json, skip

if TYPE_CHECKING:
    from .long_term import LongTermMemory

ACTOR = "maintenance:consolidation"
UNMERGED = "consolidation: group left unmerged"
#: Ids a survivor keeps in ``merged_from`` (its audit trail holds every merge).
MERGED_FROM_KEPT = 20
MERGE_PROMPT = (
    "You consolidate a memory store. The memories below (with ids) say nearly the same thing. "
    "Merge them into one memory that keeps every distinct detail, and pick the id of the "
    "memory to keep it under. Answer only JSON of the form "
    '{"keep": "<one of the ids>", "memory": "<the merged text>"}.'
)


@dataclass(frozen=True)
class Merge:
    """A group decided: ``keep`` survives with ``text``; ``others`` are merged into it."""

    keep: dict[str, Any]
    others: list[dict[str, Any]]
    text: str


def newest_first(doc: dict[str, Any]) -> tuple[str, str, str]:
    """Sort key of the newest memory (last write, then creation, then id)."""
    return (doc.get("updated_at") or "", doc.get("created_at") or "", doc["id"])


def consolidate(memory: LongTermMemory, config: Consolidation, docs: list[dict[str, Any]],
                new: list[dict[str, Any]], protected: frozenset[str]) -> LLMSteps[list[Merge]]:
    """Merge the groups of near-duplicates around each of ``new`` (oldest first); returns the
    merges made. ``protected`` ids are never merged away."""
    by_id = {d["id"]: d for d in docs}
    gone: set[str] = set()
    #: members of the groups decided so far: each group is asked about once per pass
    decided: set[str] = set()
    merges: list[Merge] = []
    candidates = [d for d in new if d["id"] not in protected]
    if not candidates:
        return merges
    vectors = memory.embed([d["memory"] for d in candidates])
    for doc, vector in zip(candidates, vectors, strict=True):
        if doc["id"] in gone or doc["id"] in decided:
            continue
        group = [doc] + [by_id[h["id"]] for h in memory.similar(vector, config.neighbours + 1)
                         if h["id"] != doc["id"] and h["id"] in by_id and h["id"] not in gone
                         and h["id"] not in protected
                         and 2 * h["score"] - 1 >= config.threshold]
        if len(group) < 2:
            continue
        decided.update(d["id"] for d in group)
        use_llm = config.use_llm and memory.llm is not None
        merge = (yield from _ask_llm(memory, group)) if use_llm else _keep_newest(group)
        if merge is None or not _apply(memory, merge):
            continue
        gone.update(o["id"] for o in merge.others)
        by_id[merge.keep["id"]] = memory.document(merge.keep["id"]) or merge.keep
        merges.append(merge)
    return merges


def _keep_newest(group: list[dict[str, Any]]) -> Merge:
    ordered = sorted(group, key=newest_first, reverse=True)
    return Merge(keep=ordered[0], others=ordered[1:], text=ordered[0]["memory"])


def _ask_llm(memory: LongTermMemory, group: list[dict[str, Any]]) -> LLMSteps[Merge | None]:
    shown = {str(i): doc for i, doc in enumerate(group)}
    prompt = json.dumps({"memories": [{"id": i, "text": d["memory"]} for i, d in shown.items()]},
                        ensure_ascii=False)
    data = yield from ask_json(memory, MERGE_PROMPT, prompt, UNMERGED)
    if data is None:
        return None
    keep, text = shown.get(str(data.get("keep"))), data.get("memory")
    if keep is None:
        return skip(memory, UNMERGED,
                    f"the LLM named id {data.get('keep')!r}, not one of {list(shown)}")
    if not isinstance(text, str) or not text.strip():
        return skip(memory, UNMERGED, f"the LLM gave no merged text: {data!r:.200}")
    return Merge(keep=keep, others=[d for d in group if d is not keep], text=text.strip())


def _apply(memory: LongTermMemory, merge: Merge) -> bool:
    """Write the merge; a merged text the limits refuse is a logged skip (nothing written)."""
    keep = merge.keep
    metadata = dict(keep.get("metadata") or {})
    before = metadata.get("merged_from")
    merged_from = [*(before if isinstance(before, list) else []),
                   *(o["id"] for o in merge.others)][-MERGED_FROM_KEPT:]
    try:
        memory.rewrite(keep, merge.text, {**metadata, "merged_from": merged_from}, ACTOR)
    except MemoryValueError as e:
        skip(memory, UNMERGED, f"the merged memory was refused: {e}")
        return False
    for other in merge.others:
        memory.remove(other, ACTOR, {"merged_into": keep["id"]})
    if memory.access is not None:
        memory.access.merge(keep["id"], [o["id"] for o in merge.others])
    return True
