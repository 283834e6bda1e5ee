"""Durable calls: the outcome of each ``ctx.durable_execute(_async)`` call of a run is recorded,
so a run executed again after a restore gets the recorded result (or failure) instead of
calling the model again.

A call is named by its run and its place in the run: the run's key, the key's run sequence
(a counter in the key's meta map, advanced when a run that made durable calls commits, so a
replayed run gets the same number) and the call's index in the run, checked against a hash of
the run's input and the function's name. Outcomes go to an append-only log per subtask
attempt (:class:`DurableLog`) on the job's checkpoint storage, fsync'd on the worker thread
before the run may go on, so they outlive the failure that rolls state back to a checkpoint.
The log starts a segment at each checkpoint's barrier and copies into it the outcomes of the
runs still waiting then; a segment is deleted once a checkpoint taken after it completes.
(Docs: docs/async_actions.md; why not keyed state: docs/design/2026-12-07-durable-call-log.md.)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DurableCallError
from ..memory.sensory import storable
from ..memory.serialization import dumps, loads
from ..memory.store import RunBuffer
from .calls import PendingCall

log = logging.getLogger(__name__)

SEQUENCE = "durable.seq"


@dataclass(frozen=True)
class CallIdentity:
    """Which call of which run: ``key``/``seq``/``index``, checked by ``input_hash`` and ``fn``."""

    key: str
    seq: int
    index: int
    input_hash: str
    fn: str

    @property
    def log_id(self) -> str:
        return f"{self.key}\x1f{self.seq}.{self.index}"


def encode_outcome(identity: CallIdentity, call: PendingCall) -> str:
    """One record as JSON text: the identity's checks and the result or the failure."""
    record: dict[str, Any] = {"id": identity.log_id, "h": identity.input_hash, "fn": identity.fn}
    if call.error is None:
        record["v"] = dumps(call.result)
    else:
        error = call.error
        record["e"] = {"type": f"{type(error).__module__}.{type(error).__qualname__}",
                       "message": str(error)}
    return json.dumps(record)


def replay_outcome(raw: str, identity: CallIdentity) -> tuple[bool, Any]:
    """``(True, result)`` for a recorded call that matches ``identity``, ``(False, None)`` for
    none; a recorded failure is raised again."""
    record = json.loads(raw)
    if record.get("h") != identity.input_hash or record.get("fn") != identity.fn:
        return False, None
    if "e" in record:
        raise _rebuilt(record["e"])
    return True, loads(record["v"])


def _rebuilt(error: dict[str, str]) -> BaseException:
    """The recorded exception as its own type where that type takes a message, else a
    DurableCallError naming it."""
    module, _, name = error["type"].rpartition(".")
    try:
        cls: Any = __import__(module, fromlist=[name])
        for part in name.split("."):
            cls = getattr(cls, part)
        if isinstance(cls, type) and issubclass(cls, Exception):
            return cls(error["message"])
    except Exception:  # noqa: BLE001 - any failure to rebuild falls back to the named error
        pass
    return DurableCallError(f"{error['type']}: {error['message']} (recorded failure)")


class DurableLog:
    """Records of one subtask attempt on the checkpoint storage's filesystem, one segment per
    checkpoint interval; on restore, the segments of every earlier attempt are read back."""

    def __init__(self, directory: Path, subtask: int, attempt: int,
                 restored_from: list[Path]) -> None:
        self._dir = directory
        self._subtask = subtask
        self._attempt = attempt
        self._lock = threading.Lock()
        directory.mkdir(parents=True, exist_ok=True)
        #: Outcomes recorded before this attempt, by log id.
        self.earlier: dict[str, str] = {}
        for folder in [directory, *restored_from]:
            for path in sorted(folder.glob("*.log")) if folder.is_dir() else []:
                self._read(path)
        self._segment = 0
        self._file = self._open(0)

    def _read(self, path: Path) -> None:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                self.earlier[json.loads(line)["id"]] = line
            except (json.JSONDecodeError, KeyError, TypeError):
                log.warning("durable call log %s: skipped a torn record", path.name)

    def _name(self, segment: int) -> Path:
        return self._dir / f"{self._subtask}-{self._attempt}-{segment}.log"

    def _open(self, segment: int) -> Any:
        return open(self._name(segment), "a", encoding="utf-8")  # noqa: SIM115 - kept open

    def append(self, record: str) -> None:
        """Write and fsync one record (on a worker thread, before the run goes on)."""
        with self._lock:
            self._file.write(record + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())

    def roll(self, checkpoint_id: int, carried: list[str]) -> None:
        """At a checkpoint's barrier: later records go to a segment of their own, which starts
        with ``carried``, the records of the runs still waiting (their inputs are in this
        checkpoint, so a restore from it runs them again)."""
        with self._lock:
            self._file.close()
            self._segment = checkpoint_id
            self._file = self._open(checkpoint_id)
            if carried:
                self._file.write("".join(record + "\n" for record in carried))
                self._file.flush()
                os.fsync(self._file.fileno())

    def trim(self, completed_id: int) -> None:
        """A checkpoint completed: the segments written before its barrier, and every earlier
        attempt's, are no longer needed (their runs ended, or the checkpoint holds them). The
        earlier attempts' records stay in memory for runs restored behind a busy key."""
        for path in self._dir.glob("*.log"):
            subtask, attempt, segment = (int(p) for p in path.stem.split("-"))
            mine = subtask == self._subtask and attempt == self._attempt
            if (mine and segment < completed_id and segment != self._segment) or (
                    subtask == self._subtask and attempt < self._attempt):
                path.unlink(missing_ok=True)

    def close(self) -> None:
        with self._lock:
            self._file.close()


class DurableCalls:
    """The durable calls of one run (one per run context), over the subtask's log."""

    def __init__(self, meta: RunBuffer, durable_log: Callable[[], DurableLog | None]) -> None:
        self._meta = meta
        self._log = durable_log
        self._seq: int | None = None
        self._index = 0
        self._input_hash = ""
        #: This run's records so far (carried into each new log segment while it waits).
        self.kept: list[str] = []

    def begin(self, value: Any) -> None:
        """A run starts on input ``value`` (hashed lazily, at its first durable call)."""
        self._seq = None
        self._index = 0
        self._value = value
        self._input_hash = ""
        self.kept = []

    def next_identity(self, key: Any, fn: Callable[..., Any]) -> CallIdentity:
        if self._seq is None:
            stored = self._meta.get(SEQUENCE)
            self._seq = int(stored) if stored is not None else 0
            self._meta.put(SEQUENCE, str(self._seq + 1))
            self._input_hash = hashlib.sha1(
                dumps(storable(self._value)).encode(), usedforsecurity=False).hexdigest()
        identity = CallIdentity(dumps(storable(key)), self._seq, self._index, self._input_hash,
                                getattr(fn, "__qualname__", None) or repr(fn))
        self._index += 1
        return identity

    def recorded(self, identity: CallIdentity) -> tuple[bool, Any]:
        """The outcome an earlier attempt recorded for ``identity``, if any."""
        durable_log = self._log()
        raw = durable_log.earlier.get(identity.log_id) if durable_log else None
        if raw is None:
            return False, None
        self.kept.append(raw)
        return replay_outcome(raw, identity)

    def started_earlier(self, identity: CallIdentity) -> bool:
        """Whether an earlier attempt started this call and never recorded its outcome (only
        calls made with a reconciler record their start)."""
        durable_log = self._log()
        return durable_log is not None and f"{identity.log_id}\x1fstarted" in durable_log.earlier

    def log_call(self, identity: CallIdentity, call: PendingCall, started: bool) -> None:
        """Have the call's outcome written to the log as soon as it settles, and with
        ``started`` its start too, before it is made (a reconciler needs to know)."""
        durable_log = self._log()
        if durable_log is None:
            return
        if started:
            durable_log.append(json.dumps({"id": f"{identity.log_id}\x1fstarted"}))
        call.on_settled = lambda c: durable_log.append(encode_outcome(identity, c))

    def keep(self, identity: CallIdentity, call: PendingCall) -> None:
        """Remember the settled call's outcome while the run waits (on the task thread)."""
        if self._log() is not None:
            self.kept.append(encode_outcome(identity, call))

    def end(self) -> None:
        """The run ended (committed or dropped): nothing of it is carried any more."""
        self.kept = []
