"""An agent whose long-term memory is maintained on event-time timers, and its oracle.

The input comes in windows: each key writes (near-duplicate facts, so consolidation merges)
and searches (accesses, so forgetting keeps what is used); then a ``tick`` element moves the
watermark past every pending timer, and a ``wake`` element with the tick's time follows it.
The source pauses before the wake and before the next window, so the passes run before the
next window. Every element reports a digest of its key's memory, so a run that failed and
restored must report exactly what the failure-free oracle (LuceneRunner, no Flink) reports.

Why the wake: Flink does not checkpoint watermarks. A checkpoint whose barrier follows a tick
but precedes the tick's (periodic) watermark holds the tick's passes as pending timers, and a
job restored from it sees no watermark until the next element has passed the agent. The wake
is that next element: it writes nothing, and its watermark fires the restored timers before
the window's first digest.

FullyMaintainedAgent runs all four tasks: its writes also go to a history that compression
summarises (extractively), and an LLM (ScriptedLLMServer answering ``scripted_reply``, a
function of the request alone, so a replayed call gets the same answer) merges the
near-duplicates and writes the profile. It is killed right after a profile answer arrives,
with the pass's compression and merges buffered.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flink_agents_memory import (
    Agent,
    Compression,
    Consolidation,
    Forgetting,
    HashingEmbedder,
    InputEvent,
    LongTermMemoryConfig,
    MaintenanceConfig,
    MemoryItem,
    OpenAICompatibleLLM,
    OutputEvent,
    Retention,
    Synthesis,
    action,
)
from flink_agents_memory.memory import synthesis
from flink_agents_memory.memory.consolidation import MERGE_PROMPT

PERIOD = 10_000
INTERVAL = 3_000
FACTS = ["likes green tea", "plays chess on sundays", "has a dog named rex", "Likes GREEN tea!",
         "lives in lyon", "works night shifts", "Plays chess on Sundays.", "reads sci-fi",
         "has a dog named Rex", "collects stamps", "LIVES IN LYON"]


def inputs(keys: int, windows: int, per_window: int) -> list[str]:
    """``key|seq|ts`` lines: windows of writes, a tick and a wake after each, a final report
    per key."""
    lines, seq = [], 0
    for w in range(windows):
        for j in range(per_window):
            lines.append(f"k{seq % keys}|{seq}|{w * PERIOD + j * 50}")
            seq += 1
        lines.append(f"tick|{seq}|{w * PERIOD + 8_000}")
        lines.append(f"wake|{seq + 1}|{w * PERIOD + 8_000}")
        seq += 2
    for k in range(keys):
        lines.append(f"k{k}|{seq}|{windows * PERIOD + k}")
        seq += 1
    return lines


class InjectedCrash(BaseException):
    """Kills the task mid-pass: maintenance logs and retries ``Exception``s, not this."""


class Crash:
    """Once only (``marker`` records it), and once a checkpoint exists: kills the task inside a
    maintenance pass after ``from_ts``, within the call of function ``inside`` (run_pass: the
    first call there). No marker: never."""

    def __init__(self, marker: str | None, checkpoint_dir: str | None, from_ts: int,
                 inside: str = "run_pass") -> None:
        self.marker, self.checkpoint_dir, self.from_ts = marker, checkpoint_dir, from_ts
        self.inside = inside

    def here(self) -> None:
        if self.marker and not Path(self.marker).exists() \
                and _in_pass_after(self.from_ts, self.inside) \
                and any(Path(self.checkpoint_dir).glob("*/chk-*/_metadata")):
            Path(self.marker).write_text("crashed")
            raise InjectedCrash(f"injected crash in a maintenance pass, in {self.inside}")


class CrashingEmbedder(HashingEmbedder):
    """Crashes (see Crash) as it is asked to embed."""

    def __init__(self, crash: Crash) -> None:
        super().__init__(256)
        self.crash = crash

    def embed(self, texts):
        self.crash.here()
        return super().embed(texts)


class CrashingLLM(OpenAICompatibleLLM):
    """The real HTTP client; crashes (see Crash) once an answer has come back."""

    def __init__(self, base_url: str, crash: Crash) -> None:
        super().__init__(base_url, "scripted", retries=2, timeout_s=30)
        self.crash = crash

    def complete(self, messages: list[dict[str, str]],
                 response_format: dict[str, Any] | None = None) -> str:
        answer = super().complete(messages, response_format)
        self.crash.here()
        return answer


def _in_pass_after(ts: int, inside: str) -> bool:
    seen = False
    for frame in _frames():
        name = frame.f_code.co_name
        seen = seen or name == inside
        if name == "run_pass":
            return frame.f_locals["now_ms"] >= ts and seen
    return False


def _frames() -> Iterator[Any]:
    """This thread's stack, innermost first, with the suspended step generators a frame
    drives inserted after it: a pass's LLM call is made between its steps (memory/
    llm_steps.py), outside their frames."""
    frame = sys._getframe()
    while frame is not None:
        yield from _with_steps(frame)
        frame = frame.f_back


def _with_steps(frame: Any) -> Iterator[Any]:
    yield frame
    yield from _driven(frame)


def _driven(frame: Any) -> Iterator[Any]:
    """The frames of the generators ``frame`` drives through a ``steps`` local (and of those
    they drive), innermost first."""
    steps, chain = frame.f_locals.get("steps"), []
    while inspect.isgenerator(steps) and steps.gi_frame is not None:
        chain.append(steps.gi_frame)
        steps = steps.gi_yieldfrom
    for generator_frame in reversed(chain):
        yield from _driven(generator_frame)
        yield generator_frame


def _plain(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def scripted_reply(body: dict[str, Any]) -> str | int:
    """The LLM's answer to a maintenance request, from the request alone: a merge keeps the
    smallest plain (lower-case, no punctuation) text under its id; a profile lists the plain
    texts of the memories shown. Anything else is a 500 (a logged skip, but none is expected)."""
    system, user = body["messages"][0]["content"], json.loads(body["messages"][1]["content"])
    if system == MERGE_PROMPT:
        keep = min(user["memories"], key=lambda m: (_plain(m["text"]), m["id"]))
        return json.dumps({"keep": keep["id"], "memory": _plain(keep["text"])})
    if system.startswith(synthesis.PROMPT.split("{instruction}")[0]):
        facts = sorted({_plain(line) for m in user["memories"] for line in m.splitlines()})
        return json.dumps({"memory": "profile: " + "; ".join(facts)})
    return 500


class MaintainedAgent(Agent):
    """Consolidation (keep-newest) and forgetting, killed at its first embedding in a pass."""

    def __init__(self, marker: str | None = None, checkpoint_dir: str | None = None,
                 crash_from_ts: int = 0) -> None:
        self.long_term_memory = LongTermMemoryConfig(
            embedder=CrashingEmbedder(Crash(marker, checkpoint_dir, crash_from_ts)),
            maintenance=MaintenanceConfig(
                interval_ms=INTERVAL, consolidation=Consolidation(threshold=0.95),
                forgetting=Forgetting(budget=4, half_life_ms=PERIOD)))

    @action(InputEvent)
    def remember(self, event, ctx):
        key, seq_text, _ = event.input.split("|")
        if key in ("tick", "wake"):
            return
        seq = int(seq_text)
        memory = ctx.memory
        if seq % 4 == 3:
            hits = memory.search(FACTS[seq % len(FACTS)], limit=2, mode="keyword")
            searched = [h.id for h in hits]
        else:
            text = f"{key} {FACTS[(seq * 7) % len(FACTS)]}"
            memory.add(text, metadata={"seq": seq})
            if self.histories:
                ctx.named_history("chat").append({"role": "user", "content": text})
            searched = []
        stored = memory.get_all(limit=1000)
        digest = {"key": key, "seq": seq, "searched": sorted(searched),
                  "ltm": sorted([m.id, m.memory, m.metadata.get("merged_from", [])]
                                for m in stored)}
        if self.histories:
            digest["history"] = ctx.named_history("chat").all()
        ctx.send_event(OutputEvent(output=json.dumps(digest)))


class FullyMaintainedAgent(MaintainedAgent):
    """All four tasks: extractive compression of the ``chat`` history, LLM merges, an LLM
    profile (Synthesis) and forgetting; killed just after a profile answer arrives."""

    histories = {"chat": Retention(max_items=100)}

    def __init__(self, llm_url: str, marker: str | None = None,
                 checkpoint_dir: str | None = None, crash_from_ts: int = 0) -> None:
        crash = Crash(marker, checkpoint_dir, crash_from_ts, inside="synthesize")
        self.long_term_memory = LongTermMemoryConfig(
            embedder=CrashingEmbedder(Crash(None, None, 0)), llm=CrashingLLM(llm_url, crash),
            maintenance=MaintenanceConfig(
                interval_ms=INTERVAL,
                compression=Compression(history="chat", older_than_ms=PERIOD // 2,
                                        use_llm=False),
                consolidation=Consolidation(threshold=0.95), synthesis=Synthesis(),
                forgetting=Forgetting(budget=4, half_life_ms=PERIOD)))


class AsyncFullyMaintainedAgent(FullyMaintainedAgent):
    """All four tasks with an ``async`` action, so its passes are runs in flight whose LLM
    calls (merges, the profile) wait off the task thread; killed at a pass's first embedding
    (on the task thread, between those calls)."""

    def __init__(self, llm_url: str, marker: str | None = None,
                 checkpoint_dir: str | None = None, crash_from_ts: int = 0) -> None:
        super().__init__(llm_url)
        self.long_term_memory = self.long_term_memory.model_copy(update={
            "embedder": CrashingEmbedder(Crash(marker, checkpoint_dir, crash_from_ts)),
            "llm": OpenAICompatibleLLM(llm_url, "scripted", retries=2, timeout_s=30)})

    @action(InputEvent)
    async def remember(self, event, ctx):
        MaintainedAgent.remember(self, event, ctx)


def oracle(lines: list[str], index_dir: Path, agent: Agent | None = None) -> dict[int, dict]:
    """Each element's digest in a failure-free run of ``agent`` (one that never crashes;
    default MaintainedAgent()) without Flink; a tick fires the timers its watermark
    (timestamp - 1) passes."""
    from lucene_store import LuceneRunner, LuceneStore

    lucene = LuceneStore(index_dir)
    now = [0]
    try:
        runner = LuceneRunner(agent or MaintainedAgent(), lucene, clock=lambda: now[0])
        digests = {}
        for line in lines:
            key, seq, ts = line.split("|")
            if key in ("tick", "wake"):
                runner.fire_timers(int(ts) - 1)
                continue
            now[0] = int(ts)
            digests[int(seq)] = json.loads(runner.run(key, line)[0])
    finally:
        lucene.close()
    return digests


class ForgetfulAgent(Agent):
    """Processing-time maintenance: a budget of 2 over ``fact-<n>`` memories; ``report`` tells
    what is left and the last audit event of each. Once the last fact is committed, the file
    ``written`` appears (the source waits for it, so the report comes after the timers)."""

    def __init__(self, facts: int, written: str) -> None:
        self.facts = facts
        self.written = written
        self.long_term_memory = LongTermMemoryConfig(
            embedder=HashingEmbedder(64),
            maintenance=MaintenanceConfig(interval_ms=50, forgetting=Forgetting(budget=2)))

    @action(InputEvent)
    def act(self, event, ctx):
        _, what = event.input.split("|")
        if what != "report":
            ctx.memory.add(MemoryItem(id=f"fact-{what}", memory=f"fact {what}"))
            if int(what) == self.facts - 1:  # committed before the next element (or timer)
                Path(self.written).touch()
            return
        trails = {i: ctx.memory.history(f"fact-{i}") for i in range(self.facts)}
        ctx.send_event(OutputEvent(output=json.dumps({
            "left": sorted(m.id for m in ctx.memory.get_all()),
            "last_events": {i: [t[-1].event, t[-1].actor] for i, t in trails.items()},
        })))
