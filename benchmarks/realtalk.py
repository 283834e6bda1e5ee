"""REALTALK (10 real multi-session chats, questions labelled with their evidence turns).

The dataset's repository states no licence, so it is not committed here: ``make
bench-retrieval-data`` clones it (``REALTALK_URL``, pinned to ``REALTALK_COMMIT``) into
``.bench/REALTALK`` and this module derives ``.bench/realtalk/chats.json`` from its
``data/Chat_*.json`` (its ``data/locomo`` copy is held out: never read here). Turn vectors are
cached beside it, per embedder, so re-runs do not embed 8,944 turns again.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .common import ROOT

CACHE = ROOT / ".bench" / "realtalk"
CATEGORIES = (1, 2, 3, 4)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    date: str
    session: int

    def memory(self) -> str:
        """One memory per turn, as the baselines store it: ``speaker: text``."""
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    question: str
    evidence: tuple[str, ...]
    category: int


@dataclass(frozen=True)
class Chat:
    name: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


_RANGE = re.compile(r"D(\d+):(\d+)(?:\s*-\s*D(\d+):(\d+))?")


def evidence_ids(evidence: list[str]) -> list[str]:
    """Dia ids from the labels as written (``D5:3.``, ``D5:12;D5:16``, ``D12:3-D12:5``)."""
    out: list[str] = []
    for label in evidence:
        for m in _RANGE.finditer(label):
            session, first, end_session, last = m.groups()
            if last is not None and end_session == session:
                out += [f"D{session}:{n}" for n in range(int(first), int(last) + 1)]
            else:
                out.append(f"D{session}:{first}")
                if last is not None:
                    out.append(f"D{end_session}:{last}")
    return list(dict.fromkeys(out))


def derive(source: Path, out: Path = CACHE / "chats.json") -> Path:
    """Compact chats (turns with text, questions of categories 1-4 with evidence) from a clone."""
    files = sorted((source / "data").glob("Chat_*.json"))
    if len(files) != 10:
        raise SystemExit(f"expected 10 data/Chat_*.json under {source}, found {len(files)}")
    chats = []
    for path in files:
        raw = json.loads(path.read_text())
        sessions = sorted((int(k.split("_")[1]), v) for k, v in raw.items()
                          if k.startswith("session_") and isinstance(v, list))
        turns = [{"dia_id": t["dia_id"], "speaker": t["speaker"], "text": t["clean_text"],
                  "date": t.get("date_time", ""), "session": n}
                 for n, session in sessions for t in session if t.get("clean_text", "").strip()]
        known = {t["dia_id"] for t in turns}
        questions = [{"question": q["question"], "category": q["category"],
                      "evidence": [e for e in evidence_ids(q["evidence"]) if e in known]}
                     for q in raw.get("qa", []) if q.get("category") in CATEGORIES]
        chats.append({"name": path.stem, "turns": turns,
                      "questions": [q for q in questions if q["evidence"]]})
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(chats))
    return out


CHATS = CACHE / "chats.json"


def missing_data() -> str | None:
    """Why the REALTALK benchmarks cannot run here (the data is downloaded, never committed)."""
    if CHATS.is_file():
        return None
    return (f"{CHATS.relative_to(ROOT)} is missing: run `make bench-retrieval-data` "
            "(REALTALK is downloaded, never committed)")


def load(path: Path = CHATS) -> list[Chat]:
    if not path.is_file():
        raise SystemExit(f"{path} is missing: run `make bench-retrieval-data` first")
    return [Chat(c["name"], tuple(Turn(**t) for t in c["turns"]),
                 tuple(Question(q["question"], tuple(q["evidence"]), q["category"])
                       for q in c["questions"]))
            for c in json.loads(path.read_text())]


def cached_vectors(name: str, texts: list[str], embed) -> np.ndarray:
    """``embed(texts)`` once per (embedder name, texts); later runs read ``.bench/realtalk``."""
    import hashlib

    digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"vectors-{name}-{digest}.npy"
    if path.is_file():
        return np.load(path)
    vectors = np.asarray(embed(texts), dtype=np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("source", type=Path, help="a REALTALK checkout")
    chats = load(derive(p.parse_args().source))
    print(f"{len(chats)} chats, {sum(len(c.turns) for c in chats)} turns, "
          f"{sum(len(c.questions) for c in chats)} questions -> {CACHE / 'chats.json'}")


if __name__ == "__main__":
    main()
