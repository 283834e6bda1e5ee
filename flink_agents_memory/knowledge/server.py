"""A local Chroma server for tests, demos and development: ``chroma run`` on a loopback port.

Chroma (the ``chromadb`` PyPI package, ``knowledge`` extra) is a server of its own; it need not
be importable by the job. In a checkout ``make install`` puts it into an environment of its own
(its dependencies, protobuf and python-dateutil, conflict with PyFlink's pins) and the Makefile
and the tests point ``$CHROMA_BIN`` at it; the package itself assumes no checkout layout.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any


def find_chroma(explicit: str | None = None) -> str | None:
    """The ``chroma`` executable: ``explicit``, ``$CHROMA_BIN``, this interpreter's ``bin/``,
    then ``PATH``. Nothing depends on where the package is installed or on the current
    directory."""
    candidates = [explicit, os.environ.get("CHROMA_BIN"),
                  str(Path(sys.prefix) / "bin" / "chroma"), shutil.which("chroma")]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return c
    return None


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class ChromaServer:
    """``with ChromaServer(path) as server: server.url`` — started on a free loopback port,
    stopped (SIGTERM, then SIGKILL) on exit. The server's output goes to ``path/chroma.log``."""

    def __init__(self, path: str | Path, host: str = "127.0.0.1", port: int = 0,
                 chroma_bin: str | None = None, startup_timeout_s: float = 90.0) -> None:
        self.path = Path(path)
        self.host = host
        self.port = port
        self.chroma_bin = find_chroma(chroma_bin)
        self.startup_timeout_s = startup_timeout_s
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.path / "chroma.log"

    def alive(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def start(self) -> ChromaServer:
        if self.chroma_bin is None:
            raise FileNotFoundError(
                "no `chroma` executable: set CHROMA_BIN to one (in a checkout `make "
                "install-knowledge` builds it), or pip install 'flink_agents_memory[knowledge]' "
                "into an environment of its own and put its bin/ on PATH")
        self.path.mkdir(parents=True, exist_ok=True)
        fixed = self.port != 0
        for _attempt in range(1 if fixed else 3):
            if not fixed:
                self.port = free_port(self.host)
            with open(self.log_path, "ab") as log:
                self.process = subprocess.Popen(
                    [self.chroma_bin, "run", "--path", str(self.path / "data"),
                     "--host", self.host, "--port", str(self.port)],
                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
            deadline = time.monotonic() + self.startup_timeout_s
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    break
                if self.alive():
                    return self
                time.sleep(0.2)
            self.stop()
        tail = self.log_path.read_text(errors="replace")[-2000:]
        raise RuntimeError(f"chroma did not start on {self.url}; log tail:\n{tail}")

    def stop(self) -> None:
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def __enter__(self) -> ChromaServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
