"""The JVM helper that reads a savepoint (``io.flinkagentsmemory.inspect.InspectorMain``).

It runs with Flink's own jars from the apache-flink wheel and the project's jar on the
classpath, prints a summary line, then answers one JSON request per line on stdin. One request
at a time (a lock), since the helper answers in order.

Most of a cold helper's start is loading and verifying some 3,500 Flink and Lucene classes. The
helper therefore runs with a class-data-sharing archive (JDK AppCDS): the first helper on a
machine writes one when it exits (``-XX:ArchiveClassesAtExit``, a few seconds at exit, into the
user's cache directory), every later one maps it (``-XX:SharedArchiveFile``), which about halves
the open. The archive's name hashes the classpath (paths, sizes, times) and the java binary, so
a new jar or JDK makes a new one; a stale or unusable archive is ignored by the JVM. Writing
a new one prunes the directory: archives older than a week (other jars; a current one is simply
written again) and half-written ones left by a killed inspector. Set
``FLINK_AGENTS_MEMORY_INSPECTOR_CDS=0`` to run without one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pyflink

from ..errors import FlinkAgentsMemoryError
from ..runtime.jars import operator_jar

MAIN_CLASS = "io.flinkagentsmemory.inspect.InspectorMain"
#: archives older than this are removed when a new one is written
ARCHIVE_MAX_AGE_S = 7 * 24 * 3600
#: a half-written archive (``.tmp``) older than this was left by a killed inspector
TMP_MAX_AGE_S = 600


class HelperError(FlinkAgentsMemoryError):
    """The helper could not open the savepoint or answer; the message names the problem."""


def classpath() -> str:
    """The project jar, then Flink's jars as the wheel ships them (lib/ and flink-python)."""
    home = Path(pyflink.__file__).resolve().parent
    jars = [operator_jar()]
    jars += sorted((home / "lib").glob("*.jar"))
    jars += sorted((home / "opt").glob("flink-python-*.jar"))
    return os.pathsep.join(str(j) for j in jars)


def java_binary() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise HelperError("no `java` found (set JAVA_HOME or put Java 17 on PATH)")
    return found


def class_archive() -> tuple[Path | None, bool]:
    """The class-data-sharing archive for this classpath and JDK, and whether it exists yet;
    (None, False) when it is turned off or there is no writable cache directory."""
    if os.environ.get("FLINK_AGENTS_MEMORY_INSPECTOR_CDS", "1") == "0":
        return None, False
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    digest = hashlib.sha256(java_binary().encode())
    try:
        digest.update(str(Path(java_binary()).resolve().stat().st_mtime_ns).encode())
        for entry in classpath().split(os.pathsep):
            st = Path(entry).stat()
            digest.update(f"{entry}|{st.st_size}|{st.st_mtime_ns}".encode())
        cache = base / "flink-agents-memory"
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None, False
    if not os.access(cache, os.W_OK):
        return None, False
    archive = cache / f"inspector-{digest.hexdigest()[:16]}.jsa"
    return archive, archive.is_file()


def prune_archives(cache: Path, keep: Path, now: float | None = None) -> None:
    """Removes old archives other than ``keep`` and stale half-written ones; errors ignored
    (another inspector may be pruning or writing at the same time)."""
    now = time.time() if now is None else now
    for path in cache.glob("inspector-*"):
        try:
            age = now - path.stat().st_mtime
            stale = (path.suffix == ".tmp" and age > TMP_MAX_AGE_S) or (
                path.suffix == ".jsa" and path != keep and age > ARCHIVE_MAX_AGE_S)
            if stale:
                path.unlink()
        except OSError:
            pass


class SavepointHelper:
    """A running helper over one savepoint; :attr:`summary` is what it found when opening.
    ``operator`` (uid, name or operator id) chooses the agent when the job applied several."""

    def __init__(self, savepoint: str, work_dir: Path, log_file: Path,
                 operator: str | None = None) -> None:
        self._lock = threading.Lock()
        self._log = open(log_file, "wb")  # noqa: SIM115 (closed in close())
        archive, exists = class_archive()
        cds: list[str] = []
        #: the archive this helper writes at exit (moved into place by close()), if any
        self._writing: Path | None = None
        if archive is not None and exists:
            cds = [f"-XX:SharedArchiveFile={archive}"]
        elif archive is not None:
            prune_archives(archive.parent, archive)
            self._writing = archive.with_name(f"{archive.stem}.{os.getpid()}.{id(self)}.tmp")
            cds = [f"-XX:ArchiveClassesAtExit={self._writing}"]
        self._archive = archive
        #: "used", "writing" (this helper writes it at exit) or "off"
        self.class_archive = "used" if cds and exists else "writing" if cds else "off"
        self._proc = subprocess.Popen(
            [java_binary(), "-Xss4m", "-Xshare:auto", *cds, "-cp", classpath(), MAIN_CLASS,
             savepoint, str(work_dir), *([operator] if operator else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, text=True,
            encoding="utf-8", bufsize=1)
        first = self._proc.stdout.readline() if self._proc.stdout else ""
        if not first:
            self.close()
            tail = log_file.read_text(errors="replace")[-2000:]
            raise HelperError(
                f"the savepoint reader stopped without an answer; its log ends: {tail}")
        summary = json.loads(first)
        if not summary.get("ok"):
            self.close()
            raise HelperError(summary.get("error") or "the savepoint reader failed")
        self.summary: dict[str, Any] = summary

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request; returns the reply or raises HelperError with the helper's message."""
        line = json.dumps({"op": op, **fields})
        with self._lock:
            proc = self._proc
            if proc.poll() is not None or proc.stdin is None or proc.stdout is None:
                raise HelperError("the savepoint reader is no longer running")
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
            reply = self._proc.stdout.readline()
        if not reply:
            raise HelperError("the savepoint reader stopped while answering")
        data: dict[str, Any] = json.loads(reply)
        if not data.get("ok"):
            raise HelperError(data.get("error") or f"{op} failed")
        return data

    def close(self) -> None:
        if self._proc.poll() is None:
            if self._proc.stdin:
                self._proc.stdin.close()
            try:
                # writing the class archive at exit takes a few seconds more
                self._proc.wait(timeout=60 if self._writing else 10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._proc.stdout:
            self._proc.stdout.close()
        self._log.close()
        if self._writing is not None and self._archive is not None:
            try:
                if self._writing.is_file() and self._proc.returncode == 0:
                    os.replace(self._writing, self._archive)  # atomic: readers see all or none
            except OSError:
                pass
            finally:
                self._writing.unlink(missing_ok=True)
                self._writing = None
