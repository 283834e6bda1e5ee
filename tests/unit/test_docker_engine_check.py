"""With no Docker engine, the Docker targets fail at once and say what to run.

Before, `make docker-up` built the jar, then found no base image and no registry and ended with
"debootstrap is missing". No engine is needed here: either the client is off PATH, or
DOCKER_HOST names a socket in a temporary directory that nothing listens on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ADVICE = "make install-docker-engine docker-engine-start"
# What the check and make's recipes need; docker and mvn are left out on purpose.
TOOLS = ("bash", "sh", "dirname", "timeout", "grep", "tail")


@pytest.fixture
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="engine-check-") as d:
        yield Path(d)


def without_docker(scratch: Path) -> dict[str, str]:
    """An environment whose PATH holds only TOOLS, so there is no docker client (and no mvn)."""
    bin_dir = scratch / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCKER_")}
    env["PATH"] = str(bin_dir)
    return env


def dead_engine(scratch: Path) -> dict[str, str]:
    """The real client, pointed at a socket nobody serves."""
    if shutil.which("docker") is None:
        pytest.skip("no docker client on PATH")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCKER_")}
    env["DOCKER_HOST"] = f"unix://{scratch / 'dead.sock'}"
    return env


def run(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    return done, time.monotonic() - start


@pytest.mark.parametrize("engine", [without_docker, dead_engine])
def test_the_check_says_no_engine_and_what_to_run(scratch, engine):
    done, _ = run([str(ROOT / "docker" / "engine.sh"), "check"], engine(scratch))
    assert done.returncode == 1
    assert "no Docker engine" in done.stderr
    assert "make " in done.stderr and "docker-engine-start" in done.stderr


def test_without_a_client_the_advice_includes_installing_it(scratch):
    done, _ = run([str(ROOT / "docker" / "engine.sh"), "check"], without_docker(scratch))
    assert ADVICE in done.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on PATH")
@pytest.mark.parametrize("target", ["docker-up", "docker-build", "docker-down"])
@pytest.mark.parametrize("engine", [without_docker, dead_engine])
def test_make_docker_targets_stop_at_the_check(scratch, engine, target):
    done, took = run([shutil.which("make"), "--no-print-directory", target], engine(scratch))
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert "no Docker engine" in out, out
    assert "debootstrap" not in out and "mvn" not in out, out   # nothing ran before the check
    assert took < 30, f"{target} took {took:.0f} s to fail"


@pytest.mark.parametrize("script", ["build-images.sh", "base-image.sh"])
def test_the_build_scripts_check_first(scratch, script):
    done, _ = run([str(ROOT / "docker" / script)], dead_engine(scratch))
    assert done.returncode == 1
    assert "no Docker engine" in done.stderr and "debootstrap" not in done.stderr
