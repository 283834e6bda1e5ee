"""Helpers of the fault tests: mounts, checkpoint ids, REST, and an agent whose memory after
every event is known (importable in the TaskManager: tests/flink is on sys.path)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from flink_agents_memory import Agent, InputEvent, OutputEvent, action
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.models import HashingEmbedder

N, KEYS = 600, 6


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rest(port: int, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return json.load(r)


def require_mount() -> None:
    """Mounting needs root; in CI (CI=true) this test must run, never skip."""
    if os.geteuid() != 0:
        if os.environ.get("CI") == "true":
            raise AssertionError("CI=true but not root: cannot mount the fault filesystem")
        pytest.skip("mounting a tmpfs needs root")


def mount(*args: str) -> None:
    """``mount``; a read-only remount is retried while a checkpoint file is open for writing
    (EBUSY)."""
    for _ in range(100):
        done = subprocess.run(["mount", *args], capture_output=True, text=True)
        if done.returncode == 0:
            return
        time.sleep(0.02)
    raise AssertionError(f"mount {' '.join(args)} failed: {done.stderr}")


def progress(work: Path) -> int:
    """The last event the agent processed (-1 before the first)."""
    path = work / "progress"
    return int(path.read_text()) if path.exists() else -1


def checkpoint_ids(directory: Path) -> list[int]:
    return sorted(int(m.parent.name[4:]) for m in directory.glob("*/chk-*/_metadata"))


class StorageAgent(Agent):
    """Counts events and adds a long-term memory per event; records how far it got
    (``progress``) and fails once after a checkpoint completed later than ``writable_since``."""

    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(16))

    def __init__(self, work: str | None = None) -> None:
        self.work = work

    @action(InputEvent)
    def step(self, event, ctx):
        key, seq = event.input.split("|")
        stm = ctx.get_short_term_memory()
        count = (stm.get("count") or 0) + 1
        stm.set("count", count)
        ctx.memory.add(f"{key} event {seq}")
        if self.work:
            work = Path(self.work)
            tmp = work / f"progress.{threading.get_ident()}.tmp"  # one per subtask thread
            tmp.write_text(seq)
            os.replace(tmp, work / "progress")  # never read half-written
            since = work / "writable_since"
            failed = work / "failed"
            if since.exists() and not failed.exists() and any(
                    m.stat().st_mtime > float(since.read_text())
                    for m in (work / "checkpoints").glob("*/chk-*/_metadata")):
                failed.write_text(json.dumps(checkpoint_ids(work / "checkpoints")))
                raise RuntimeError(f"injected failure at {seq}")
        ctx.send_event(OutputEvent(output=json.dumps(
            {"key": key, "count": count, "seq": int(seq),
             "memories": sorted(m.memory for m in ctx.memory.get_all(limit=1000))
             if int(seq) >= N - KEYS else None})))


def final(outputs: list[str]) -> dict[str, dict]:
    last: dict[str, dict] = {}
    for raw in outputs:
        out = json.loads(raw)
        if out["key"] not in last or out["seq"] > last[out["key"]]["seq"]:
            last[out["key"]] = out
    return {k: {"count": v["count"], "memories": v["memories"]} for k, v in last.items()}
