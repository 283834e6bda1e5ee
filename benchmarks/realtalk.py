"""REALTALK and LoCoMo (10 multi-session chats each, questions labelled with evidence turns).

Neither is committed here (REALTALK's repository states no licence, LoCoMo is CC BY-NC): ``make
bench-retrieval-data`` clones the REALTALK repository (``REALTALK_URL``, pinned to
``REALTALK_COMMIT``) into ``.bench/REALTALK``, and this module derives ``.bench/realtalk/
chats.json`` from its ``data/Chat_*.json`` and ``.bench/locomo/chats.json`` from its
``data/locomo/Chat_*.json`` (``--dataset locomo``). REALTALK is what retrieval was tuned on;
LoCoMo is the held-out check, run with the defaults frozen. Turn vectors are cached beside each
``chats.json``, per embedder, so re-runs do not embed the turns again.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .common import ROOT

CATEGORIES = (1, 2, 3, 4)  # 5 is LoCoMo's adversarial category (unanswerable questions)


@dataclass(frozen=True)
class Dataset:
    """Where a dataset's chats lie in the checkout and how their turns are laid out."""

    name: str
    pattern: str  # the chat files, relative to the checkout
    text_field: str  # REALTALK's cleaned text, LoCoMo's text
    nested: bool  # LoCoMo keeps the sessions under "conversation", dates per session

    @property
    def cache(self) -> Path:
        return ROOT / ".bench" / self.name

    @property
    def chats(self) -> Path:
        return self.cache / "chats.json"


REALTALK = Dataset("realtalk", "data/Chat_*.json", "clean_text", nested=False)
LOCOMO = Dataset("locomo", "data/locomo/Chat_*.json", "text", nested=True)
DATASETS = {d.name: d for d in (REALTALK, LOCOMO)}
CACHE = REALTALK.cache


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


def derive(source: Path, dataset: Dataset = REALTALK) -> Path:
    """Compact chats (turns with text, questions of categories 1-4 with evidence) from a clone."""
    files = sorted(source.glob(dataset.pattern))
    if len(files) != 10:
        raise SystemExit(f"expected 10 {dataset.pattern} under {source}, found {len(files)}")
    chats = []
    for path in files:
        raw = json.loads(path.read_text())
        conversation = raw["conversation"] if dataset.nested else raw
        sessions = sorted((int(k.split("_")[1]), v) for k, v in conversation.items()
                          if re.fullmatch(r"session_\d+", k) and isinstance(v, list))
        turns = [{"dia_id": t["dia_id"], "speaker": t["speaker"],
                  "text": t[dataset.text_field],
                  "date": t.get("date_time") or conversation.get(f"session_{n}_date_time", ""),
                  "session": n}
                 for n, session in sessions for t in session
                 if t.get(dataset.text_field, "").strip()]
        known = {t["dia_id"] for t in turns}
        questions = [{"question": q["question"], "category": q["category"],
                      "evidence": [e for e in evidence_ids(q.get("evidence", [])) if e in known]}
                     for q in raw.get("qa", []) if q.get("category") in CATEGORIES]
        chats.append({"name": path.stem, "turns": turns,
                      "questions": [q for q in questions if q["evidence"]]})
    dataset.chats.parent.mkdir(parents=True, exist_ok=True)
    dataset.chats.write_text(json.dumps(chats))
    return dataset.chats


CHATS = REALTALK.chats


def missing_data(dataset: Dataset = REALTALK) -> str | None:
    """Why a dataset's benchmarks cannot run here (the data is downloaded, never committed)."""
    if dataset.chats.is_file():
        return None
    return (f"{dataset.chats.relative_to(ROOT)} is missing: run `make bench-retrieval-data` "
            f"({dataset.name} is downloaded, never committed)")


def load(path: Path = CHATS) -> list[Chat]:
    if not path.is_file():
        raise SystemExit(f"{path} is missing: run `make bench-retrieval-data` first")
    return [Chat(c["name"], tuple(Turn(**t) for t in c["turns"]),
                 tuple(Question(q["question"], tuple(q["evidence"]), q["category"])
                       for q in c["questions"]))
            for c in json.loads(path.read_text())]


def cached_vectors(name: str, texts: list[str], embed, cache: Path = CACHE) -> np.ndarray:
    """``embed(texts)`` once per (embedder name, texts); later runs read them from ``cache``."""
    import hashlib

    digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    path = cache / f"vectors-{name}-{digest}.npy"
    if path.is_file():
        return np.load(path)
    vectors = np.asarray(embed(texts), dtype=np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("source", type=Path, help="a REALTALK checkout")
    p.add_argument("--dataset", choices=sorted(DATASETS), default=REALTALK.name)
    a = p.parse_args()
    dataset = DATASETS[a.dataset]
    chats = load(derive(a.source, dataset))
    print(f"{dataset.name}: {len(chats)} chats, {sum(len(c.turns) for c in chats)} turns, "
          f"{sum(len(c.questions) for c in chats)} questions -> {dataset.chats}")


if __name__ == "__main__":
    main()
