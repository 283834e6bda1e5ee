"""Fault helpers of the MiniCluster tests: the job's REST API (a free loopback port), and small
filesystems (tmpfs) that fill up or turn read-only under a running job.

Mounting needs root. CI runs as root, so there a mount that fails is a test failure naming the
command and its error; only a run without root outside CI skips, and says why (``-ra`` prints
it).
"""

from __future__ import annotations

import errno
import json
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rest(port: int, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return json.load(r)


def jobmanager_log(port: int) -> str:
    """The JobManager's log file as REST serves it (in a MiniCluster, the TaskManagers' too)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/jobmanager/log", timeout=30) as r:
        return r.read().decode(errors="replace")


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, check=False)


def require_root(what: str) -> None:
    """Skip (outside CI) or fail (CI=true) unless this process may mount ``what``."""
    if os.geteuid() == 0:
        return
    reason = f"{what} needs root (CI runs as root)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; in CI (CI=true) this test must run, not skip")
    pytest.skip(reason)


@contextmanager
def small_filesystem(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (e.g. ``"32m"``) mounted at ``path`` for the block; unmounted after,
    also when the test fails."""
    require_root(f"mounting a {size} tmpfs at {path}")
    path.mkdir(parents=True, exist_ok=True)
    done = _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
    if done.returncode != 0:
        pytest.fail(f"`mount -t tmpfs -o size={size} tmpfs {path}` failed as root "
                    f"(rc {done.returncode}): {done.stderr.strip()}; this test needs a "
                    f"container that may mount (e.g. docker run --privileged)")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(path: Path) -> Path:
    """Writes a file under ``path`` until its filesystem is full; returns the file."""
    filler = path / "filler.bin"
    chunk = b"\0" * (1 << 20)
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(chunk)
        except OSError as e:
            if e.errno != errno.ENOSPC:
                raise
    for size in (1 << 16, 1 << 12, 1):  # the last partial megabyte too
        with open(filler, "ab", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
    return filler


def remount(path: Path, mode: str, timeout: float = 30) -> None:
    """Remounts ``path`` ``"ro"`` or ``"rw"``. A filesystem with a file open for writing
    refuses to turn read-only (busy): retried until ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        done = _mount("-o", f"remount,{mode}", str(path))
        if done.returncode == 0:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"`mount -o remount,{mode} {path}` failed for {timeout:.0f}s: "
                                 f"{done.stderr.strip()}")
        time.sleep(0.05)


def wait_until(predicate: Callable[[], bool], timeout: float, what: str,
               poll: float = 0.2) -> None:
    """Polls ``predicate``; an ``AssertionError`` naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(poll)
