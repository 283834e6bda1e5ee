"""The compose cluster of docker/docker-compose.yml, started for the tests under a project name
of their own, with free loopback ports, and tests/containers/compose.test.yml on top (the
cluster tests' job directory and a digest directory of this run, mounted on every Flink
container). ``down`` removes its containers, network and volumes; it runs also when a test fails.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker" / "docker-compose.yml"
TEST_FILE = Path(__file__).with_name("compose.test.yml")
JOBS_DIR = ROOT / "tests" / "cluster"
FLINK_IMAGE = os.environ.get("FLINK_AGENTS_MEMORY_IMAGE", "flink-agents-memory:dev")
CHROMA_IMAGE = os.environ.get("FLINK_AGENTS_MEMORY_CHROMA_IMAGE", "flink-agents-memory-chroma:dev")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def compose_command() -> list[str]:
    """`docker compose` (v2) where the plugin exists, else docker-compose (1.29 in Debian)."""
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
    if probe.returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    raise RuntimeError("neither `docker compose` nor docker-compose is installed "
                       "(make install-docker-engine)")


@dataclass
class ComposeCluster:
    digests: Path
    project: str = field(default_factory=lambda: f"fam-test-{uuid.uuid4().hex[:8]}")
    rest_port: int = field(default_factory=free_port)
    chroma_port: int = field(default_factory=free_port)

    def env(self) -> dict[str, str]:
        return {**os.environ, "FLINK_REST_PORT": str(self.rest_port),
                "CHROMA_PORT": str(self.chroma_port), "JOBS_DIR": str(JOBS_DIR),
                "DIGESTS_DIR": str(self.digests)}

    def compose(self, *args: str, timeout: float = 300,
                check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [*compose_command(), "-p", self.project, "-f", str(COMPOSE_FILE),
               "-f", str(TEST_FILE), *args]
        result = subprocess.run(cmd, env=self.env(), capture_output=True, text=True,
                                timeout=timeout, stdin=subprocess.DEVNULL)
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({result.returncode}):\n"
                               f"{result.stdout}\n{result.stderr}")
        return result

    @property
    def rest_url(self) -> str:
        return f"http://127.0.0.1:{self.rest_port}"

    @property
    def chroma_url(self) -> str:
        return f"http://127.0.0.1:{self.chroma_port}"

    def up(self, taskmanagers: int = 2, timeout: float = 600) -> None:
        self.digests.mkdir(parents=True, exist_ok=True)
        self.digests.chmod(0o777)   # the containers' flink user writes digests here
        self.compose("up", "-d", timeout=timeout)
        self.wait_taskmanagers(taskmanagers, timeout)

    def overview(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.rest_url + "/overview", timeout=5) as resp:
            return json.loads(resp.read())

    def wait_taskmanagers(self, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        seen: dict[str, Any] = {}
        while time.monotonic() < deadline:
            try:
                seen = self.overview()
                if seen["taskmanagers"] >= count:
                    return
            except OSError:
                pass
            time.sleep(1)
        raise TimeoutError(f"{count} TaskManagers not registered after {timeout:.0f}s: {seen}\n"
                           + self.logs())

    def exec(self, service: str, *cmd: str,
             timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return self.compose("exec", "-T", service, *cmd, timeout=timeout, check=False)

    def flink_run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """``flink run ...`` inside the JobManager container (the client runs there)."""
        return self.exec("jobmanager", "flink", "run", *args, timeout=timeout)

    def container_id(self, service: str) -> str:
        return self.compose("ps", "-q", service).stdout.strip()

    def logs(self, *services: str, tail: int = 60) -> str:
        result = self.compose("logs", "--no-color", f"--tail={tail}", *services, check=False)
        return result.stdout + result.stderr

    def down(self) -> None:
        self.compose("down", "-v", "--remove-orphans", "--timeout", "20", timeout=180)
