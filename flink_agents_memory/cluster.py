"""A standalone Flink cluster (one JobManager, N TaskManagers) run from the apache-flink wheel.

FLINK_HOME is the installed ``pyflink`` package directory; nothing in it is modified. Every
file the cluster writes lives under one state directory (``var/flink`` by default):

* ``conf/``   a copy of the wheel's ``conf/`` with our ``config.yaml`` (slots, ports, memory,
  checkpoint and savepoint directories, no HA, loopback only);
* ``lib/``    links to the wheel's ``lib/*.jar`` plus ``opt/flink-python-*.jar`` (passed to the
  scripts as ``FLINK_LIB_DIR``, so PyFlink jobs can run);
* ``log/``, ``pids/``, ``checkpoints/``, ``savepoints/`` and ``cluster.json``, the record of
  the processes this module started (``stop`` ends exactly those).

Each process is started in the foreground (``jobmanager.sh start-foreground``), which ``exec``s
the JVM, so the recorded PID is the JVM's own. CLI::

    python -m flink_agents_memory.cluster up [--rest-port 8081] [--taskmanagers 2]
    python -m flink_agents_memory.cluster submit examples/demo.py [-- job args]
    python -m flink_agents_memory.cluster status
    python -m flink_agents_memory.cluster down
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from .vector_module import add_to_taskmanagers

DEFAULT_DIR = Path("var") / "flink"
STATE_FILE = "cluster.json"
LOOPBACK = "127.0.0.1"


class ClusterError(RuntimeError):
    """The cluster could not be started, reached or stopped."""


@dataclass(frozen=True)
class ClusterSettings:
    """What ``start`` builds; defaults fit a 2-core machine that also runs tests."""

    base_dir: Path = DEFAULT_DIR
    rest_port: int = 8081
    rpc_port: int = 6123
    taskmanagers: int = 2
    slots: int = 2
    jobmanager_memory: str = "1024m"
    taskmanager_memory: str = "1280m"
    managed_fraction: float = 0.1
    heartbeat_interval_ms: int = 2000
    heartbeat_timeout_ms: int = 12000
    extra_conf: dict[str, str] = field(default_factory=dict)

    @property
    def base(self) -> Path:
        return self.base_dir.resolve()

    @property
    def conf_dir(self) -> Path:
        return self.base / "conf"

    @property
    def lib_dir(self) -> Path:
        return self.base / "lib"

    @property
    def log_dir(self) -> Path:
        return self.base / "log"

    @property
    def checkpoint_dir(self) -> Path:
        return self.base / "checkpoints"

    @property
    def savepoint_dir(self) -> Path:
        return self.base / "savepoints"

    @property
    def rest_url(self) -> str:
        return f"http://{LOOPBACK}:{self.rest_port}"


@dataclass
class ClusterState:
    """Recorded in ``<base_dir>/cluster.json``: the processes ``start`` launched."""

    rest_port: int
    conf_dir: str
    processes: dict[str, int] = field(default_factory=dict)

    def save(self, base: Path) -> None:
        (base / STATE_FILE).write_text(json.dumps(asdict(self), indent=2) + "\n")

    @staticmethod
    def load(base: Path) -> ClusterState | None:
        path = base / STATE_FILE
        if not path.exists():
            return None
        return ClusterState(**json.loads(path.read_text()))


# -- FLINK_HOME and configuration ------------------------------------------------------------

def flink_home() -> Path:
    """The installed ``pyflink`` package directory (it has bin/, conf/, lib/, opt/)."""
    import pyflink

    home = Path(pyflink.__file__).resolve().parent
    if not (home / "bin" / "jobmanager.sh").exists():
        raise ClusterError(f"{home} has no bin/jobmanager.sh: is apache-flink installed?")
    return home


def flink_python_jar(home: Path) -> Path:
    """``opt/flink-python-*.jar`` of the distribution (needed by every PyFlink job)."""
    jars = sorted((home / "opt").glob("flink-python-*.jar"))
    if len(jars) != 1:
        raise ClusterError(f"expected one flink-python jar in {home / 'opt'}, found {jars}")
    return jars[0]


def flatten_yaml(text: str) -> dict[str, str]:
    """Flatten the nested ``key: value`` YAML subset of Flink's default ``config.yaml``.

    Only mappings of scalars are understood (that is all the wheel ships); anything else is
    a ``ClusterError`` rather than a silently wrong configuration."""
    flat: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+):(?:\s+(.*))?", line.strip())
        if match is None:
            raise ClusterError(f"unsupported line in config.yaml: {raw!r}")
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key = ".".join([*(k for _, k in stack), match.group(1)])
        if match.group(2) is None:
            stack.append((indent, match.group(1)))
        else:
            flat[key] = match.group(2).strip().strip("'\"")
    return flat


def cluster_conf(settings: ClusterSettings, defaults: dict[str, str]) -> dict[str, str]:
    """The wheel's defaults overlaid with this cluster's settings (loopback, no HA)."""
    conf = dict(defaults)
    conf.update({
        "jobmanager.rpc.address": LOOPBACK,
        "jobmanager.rpc.port": str(settings.rpc_port),
        "jobmanager.bind-host": LOOPBACK,
        "jobmanager.memory.process.size": settings.jobmanager_memory,
        "taskmanager.bind-host": LOOPBACK,
        "taskmanager.host": LOOPBACK,
        "taskmanager.numberOfTaskSlots": str(settings.slots),
        "taskmanager.memory.process.size": settings.taskmanager_memory,
        "taskmanager.memory.managed.fraction": str(settings.managed_fraction),
        "rest.address": LOOPBACK,
        "rest.bind-address": LOOPBACK,
        "rest.port": str(settings.rest_port),
        "high-availability.type": "NONE",
        "execution.checkpointing.dir": settings.checkpoint_dir.as_uri(),
        "execution.checkpointing.savepoint-dir": settings.savepoint_dir.as_uri(),
        "heartbeat.interval": str(settings.heartbeat_interval_ms),
        "heartbeat.timeout": str(settings.heartbeat_timeout_ms),
        "taskmanager.load-balance.mode": "SLOTS",  # spread a job over the TaskManagers
        # `flink run -py` ships flink-python (which bundles PEMJA) as a user jar too; the
        # operator jar is loaded child-first and would link PEMJA from that copy, clashing
        # with the one flink-python in lib/ uses (LinkageError: loader constraint violation).
        "classloader.parent-first-patterns.additional": "pemja.",
        "env.log.dir": str(settings.log_dir),
    })
    conf.update(settings.extra_conf)
    return conf


def write_conf(path: Path, conf: dict[str, str]) -> None:
    """Write flat keys; every value is a JSON string, which is also a valid YAML scalar."""
    lines = ["# Written by flink_agents_memory.cluster; regenerated by every `up`."]
    lines += [f"{key}: {json.dumps(value)}" for key, value in sorted(conf.items())]
    path.write_text("\n".join(lines) + "\n")


def prepare(settings: ClusterSettings) -> Path:
    """Create the state directory: conf copy, lib links, log/pid/checkpoint dirs."""
    home = flink_home()
    base = settings.base
    for sub in ("log", "pids", "checkpoints", "savepoints"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    shutil.rmtree(settings.conf_dir, ignore_errors=True)
    shutil.copytree(home / "conf", settings.conf_dir)
    defaults = flatten_yaml((home / "conf" / "config.yaml").read_text())
    write_conf(settings.conf_dir / "config.yaml",
               add_to_taskmanagers(cluster_conf(settings, defaults)))
    shutil.rmtree(settings.lib_dir, ignore_errors=True)
    settings.lib_dir.mkdir()
    for jar in [*sorted((home / "lib").glob("*.jar")), flink_python_jar(home)]:
        (settings.lib_dir / jar.name).symlink_to(jar)
    return base


def flink_env(settings: ClusterSettings) -> dict[str, str]:
    """Environment for the Flink scripts: our conf, lib, log and pid directories."""
    env = dict(os.environ)
    env.update({
        "FLINK_CONF_DIR": str(settings.conf_dir),
        "FLINK_LIB_DIR": str(settings.lib_dir),
        "FLINK_LOG_DIR": str(settings.log_dir),
        "FLINK_PID_DIR": str(settings.base / "pids"),
        "STD_REDIRECT_TO_FILE": "true",
    })
    env.pop("FLINK_HOME", None)
    return env


# -- processes -------------------------------------------------------------------------------

def spawn(settings: ClusterSettings, name: str, script: str, args: Sequence[str] = ()) -> int:
    """Start ``bin/<script> start-foreground`` in its own session; returns the JVM's PID."""
    cmd = [str(flink_home() / "bin" / script), "start-foreground", *args]
    with open(settings.log_dir / f"{name}.launch.log", "ab") as out:
        proc = subprocess.Popen(cmd, env=flink_env(settings), stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, cwd=settings.base)
    return proc.pid


def is_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie child is reaped and counts as gone)."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[-1].split()[0] == "Z")


def is_ours(pid: int, state: ClusterState) -> bool:
    """The PID still runs a JVM of this cluster (guards against recycled PIDs)."""
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not cmdline.exists():
        return is_alive(pid)
    try:
        return state.conf_dir in cmdline.read_bytes().decode(errors="replace")
    except OSError:
        return False


def add_taskmanager(settings: ClusterSettings, name: str | None = None) -> str:
    """Start one more TaskManager (resource id = ``name``) and record its PID."""
    state = _require_state(settings)
    index = 1 + sum(1 for n in state.processes if n.startswith("taskmanager-"))
    name = name or f"taskmanager-{index}"
    if name in state.processes and is_alive(state.processes[name]):
        raise ClusterError(f"{name} already runs (pid {state.processes[name]})")
    state.processes[name] = spawn(settings, name, "taskmanager.sh",
                                  ["-D", f"taskmanager.resource-id={name}"])
    state.save(settings.base)
    return name


def kill_process(settings: ClusterSettings, name: str, sig: int = signal.SIGKILL) -> int:
    """Send ``sig`` (default: kill -9) to one recorded process; returns its PID."""
    state = _require_state(settings)
    pid = state.processes[name]
    if not is_ours(pid, state):
        raise ClusterError(f"{name} (pid {pid}) is not running")
    os.kill(pid, sig)
    return pid


def kill_all(settings: ClusterSettings) -> dict[str, int]:
    """kill -9 every recorded process that still runs, JobManager included, as a power cut
    would; waits until they are gone and returns their PIDs by name. The recorded state stays,
    so ``start`` can bring the cluster back on the same ports and directories."""
    state = _require_state(settings)
    killed = {name: pid for name, pid in state.processes.items() if is_ours(pid, state)}
    for pid in killed.values():
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while any(is_alive(pid) for pid in killed.values()):
        if time.monotonic() > deadline:
            raise ClusterError(f"processes {killed} still alive 30s after kill -9")
        time.sleep(0.1)
    return killed


def latest_checkpoint(job_checkpoints: Path) -> Path | None:
    """The newest complete checkpoint (``chk-<n>`` with its ``_metadata``) of one job's
    checkpoint directory, ``<execution.checkpointing.dir>/<job id>``: what ``flink run -s``
    resumes from after the cluster was lost. A checkpoint cut short has no ``_metadata``."""
    complete = [d for d in job_checkpoints.glob("chk-*")
                if d.name[4:].isdigit() and (d / "_metadata").is_file()]
    return max(complete, key=lambda d: int(d.name[4:]), default=None)


def _require_state(settings: ClusterSettings) -> ClusterState:
    state = ClusterState.load(settings.base)
    if state is None:
        raise ClusterError(f"no cluster recorded in {settings.base}; run `up` first")
    return state


# -- REST ------------------------------------------------------------------------------------

def rest_get(settings: ClusterSettings, path: str, timeout: float = 10) -> Any:
    """GET ``path`` of the REST API and decode the JSON answer."""
    with urllib.request.urlopen(settings.rest_url + path, timeout=timeout) as resp:
        return json.loads(resp.read())


def rest_post(settings: ClusterSettings, path: str, body: dict[str, Any],
              timeout: float = 10) -> Any:
    """POST a JSON ``body`` to ``path`` of the REST API and decode the answer."""
    req = urllib.request.Request(settings.rest_url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read())


def wait_rest(settings: ClusterSettings, taskmanagers: int | None = None,
              timeout: float = 120) -> dict[str, Any]:
    """Wait until ``/overview`` answers and shows ``taskmanagers`` (default: all) running."""
    want = settings.taskmanagers if taskmanagers is None else taskmanagers
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            overview = rest_get(settings, "/overview", timeout=5)
            if overview.get("taskmanagers", 0) >= want:
                return overview
            last = overview
        except (OSError, ValueError) as e:
            last = e
        _check_started(settings)
        time.sleep(0.5)
    raise ClusterError(f"REST API {settings.rest_url} not ready with {want} TaskManagers "
                       f"after {timeout:.0f}s (last: {last}); see {settings.log_dir}")


def _check_started(settings: ClusterSettings) -> None:
    state = ClusterState.load(settings.base)
    for name, pid in (state.processes if state else {}).items():
        if not is_alive(pid) and name == "jobmanager":
            raise ClusterError(f"the JobManager (pid {pid}) exited; see {settings.log_dir}")


# -- cluster lifecycle -----------------------------------------------------------------------

def start(settings: ClusterSettings, timeout: float = 120) -> ClusterState:
    """Prepare the state directory, start the JobManager and the TaskManagers, wait for REST."""
    previous = ClusterState.load(settings.base)
    if previous and any(is_ours(pid, previous) for pid in previous.processes.values()):
        raise ClusterError(f"a cluster recorded in {settings.base} still runs; run `down`")
    prepare(settings)
    state = ClusterState(rest_port=settings.rest_port, conf_dir=str(settings.conf_dir))
    state.save(settings.base)
    try:
        state.processes["jobmanager"] = spawn(settings, "jobmanager", "jobmanager.sh")
        state.save(settings.base)
        for _ in range(settings.taskmanagers):
            add_taskmanager(settings)
        wait_rest(settings, timeout=timeout)
    except BaseException:
        stop(settings)
        raise
    return _require_state(settings)


def stop(settings: ClusterSettings, timeout: float = 30) -> list[str]:
    """Stop exactly the processes recorded by ``start`` (TERM, then KILL); returns names."""
    state = ClusterState.load(settings.base)
    if state is None:
        return []
    names = sorted(state.processes, key=lambda n: n == "jobmanager")  # TaskManagers first
    stopped = []
    for name in names:
        pid = state.processes[name]
        if is_ours(pid, state):
            os.kill(pid, signal.SIGTERM)
            stopped.append(name)
    deadline = time.monotonic() + timeout
    for name in stopped:
        pid = state.processes[name]
        while is_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if is_alive(pid):
            os.kill(pid, signal.SIGKILL)
    (settings.base / STATE_FILE).unlink(missing_ok=True)
    return stopped


def status(settings: ClusterSettings) -> dict[str, Any]:
    """Recorded processes (alive or not) and, when REST answers, overview and jobs."""
    state = ClusterState.load(settings.base)
    result: dict[str, Any] = {"state_dir": str(settings.base), "processes": {}}
    if state is None:
        return result
    result["processes"] = {n: {"pid": p, "alive": is_ours(p, state)}
                           for n, p in state.processes.items()}
    try:
        result["overview"] = rest_get(settings, "/overview", timeout=3)
        result["jobs"] = rest_get(settings, "/jobs/overview", timeout=3)["jobs"]
    except (OSError, ValueError) as e:
        result["rest"] = f"unreachable: {e}"
    return result


# -- jobs ------------------------------------------------------------------------------------

def submit_command(settings: ClusterSettings, job: Path, job_args: Sequence[str] = (),
                   detached: bool = False, parallelism: int | None = None,
                   savepoint: str | None = None, python: str | None = None) -> list[str]:
    """The ``flink run -py`` command line for ``job`` (interpreter: this one by default)."""
    python = python or sys.executable
    cmd = [str(flink_home() / "bin" / "flink"), "run"]
    if detached:
        cmd.append("-d")
    if parallelism is not None:
        cmd += ["-p", str(parallelism)]
    if savepoint is not None:
        cmd += ["-s", savepoint]
    cmd += ["-py", str(Path(job).resolve()), "-pyexec", python, "-pyclientexec", python]
    return [*cmd, *job_args]


def submit(settings: ClusterSettings, job: Path, job_args: Sequence[str] = (),
           detached: bool = False, parallelism: int | None = None,
           savepoint: str | None = None, timeout: float | None = None,
           capture: bool = False) -> subprocess.CompletedProcess[str]:
    """Run ``flink run -py job``; with ``capture`` the output is returned, not printed."""
    cmd = submit_command(settings, job, job_args, detached, parallelism, savepoint)
    env = flink_env(settings)
    env.pop("STD_REDIRECT_TO_FILE")
    env["PYFLINK_CLIENT_EXECUTABLE"] = sys.executable
    return subprocess.run(cmd, env=env, text=True, timeout=timeout, check=False,
                          capture_output=capture, stdin=subprocess.DEVNULL)


TERMINAL_STATES = frozenset({"FINISHED", "FAILED", "CANCELED", "SUSPENDED"})


def wait_job(settings: ClusterSettings, job_id: str, states: Sequence[str] = ("FINISHED",),
             timeout: float = 300) -> dict[str, Any]:
    """Poll ``/jobs/<id>`` until its state is one of ``states``; a different terminal state
    (or the timeout) is a ``ClusterError`` with the root exception when there is one."""
    deadline = time.monotonic() + timeout
    job: dict[str, Any] = {}
    while time.monotonic() < deadline:
        job = rest_get(settings, f"/jobs/{job_id}")
        if job["state"] in states:
            return job
        if job["state"] in TERMINAL_STATES:
            cause = root_exception(settings, job_id)
            raise ClusterError(f"job {job_id} ended {job['state']}: {cause}")
        time.sleep(0.3)
    raise ClusterError(f"job {job_id} still {job.get('state')} after {timeout:.0f}s "
                       f"(wanted {list(states)}): {root_exception(settings, job_id)}")


def root_exception(settings: ClusterSettings, job_id: str) -> str | None:
    """The first line of the job's root exception, if any."""
    try:
        exc = rest_get(settings, f"/jobs/{job_id}/exceptions").get("exceptionHistory", {})
    except (OSError, ValueError):
        return None
    entries = exc.get("entries") or []
    return entries[0]["stacktrace"].split("\n", 1)[0] if entries else None


def job_taskmanagers(settings: ClusterSettings, job_id: str) -> dict[str, list[str]]:
    """Resource id of each TaskManager running a task of the job → the vertex names."""
    placement: dict[str, list[str]] = {}
    for vertex in rest_get(settings, f"/jobs/{job_id}")["vertices"]:
        subtasks = rest_get(settings, f"/jobs/{job_id}/vertices/{vertex['id']}")["subtasks"]
        for sub in subtasks:
            if sub["status"] in ("DEPLOYING", "INITIALIZING", "RUNNING"):
                placement.setdefault(sub["taskmanager-id"], []).append(vertex["name"])
    return placement


def stop_with_savepoint(settings: ClusterSettings, job_id: str, target: Path | None = None,
                        timeout: float = 180, attempts: int = 5) -> str:
    """Stop the job with a savepoint (REST ``/jobs/<id>/stop``); returns its location.

    A trigger refused because a task is not running yet (a job just started or restored)
    leaves the job running and is retried, ``attempts`` times in all."""
    body = {"targetDirectory": str(target or settings.savepoint_dir), "drain": False}
    for attempt in range(1, attempts + 1):
        request_id = rest_post(settings, f"/jobs/{job_id}/stop", body)["request-id"]
        operation = _wait_operation(settings, f"/jobs/{job_id}/savepoints/{request_id}",
                                    timeout)
        if "failure-cause" not in operation:
            return operation["location"]
        trace = operation["failure-cause"].get("stack-trace", "")
        if "Not all required tasks are currently running" not in trace or attempt == attempts:
            raise ClusterError(f"stop-with-savepoint of {job_id} failed: {trace[:2000]}")
        time.sleep(1)
    raise AssertionError("unreachable")


def _wait_operation(settings: ClusterSettings, path: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = rest_get(settings, path)
        if answer["status"]["id"] == "COMPLETED":
            return answer["operation"]
        time.sleep(0.3)
    raise ClusterError(f"{path} not completed after {timeout:.0f}s")


def job_id_of(output: str) -> str:
    """The JobID that ``flink run -d`` prints."""
    match = re.search(r"JobID ([0-9a-f]{32})", output)
    if match is None:
        raise ClusterError(f"no JobID in the flink run output:\n{output}")
    return match.group(1)


# -- CLI -------------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--dir", default=str(DEFAULT_DIR), help="state directory (var/flink)")
    parser = argparse.ArgumentParser(prog="python -m flink_agents_memory.cluster",
                                     description=__doc__.split("\n", 1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    up = commands.add_parser("up", parents=[common], help="start the cluster, wait for REST")
    up.add_argument("--rest-port", type=int, default=8081)
    up.add_argument("--rpc-port", type=int, default=6123)
    up.add_argument("--taskmanagers", type=int, default=2)
    up.add_argument("--slots", type=int, default=2)
    commands.add_parser("down", parents=[common], help="stop the recorded processes")
    commands.add_parser("status", parents=[common], help="processes, overview, jobs")
    submit_cmd = commands.add_parser("submit", parents=[common], help="flink run -py JOB")
    submit_cmd.add_argument("--detached", "-d", action="store_true", help="do not wait")
    submit_cmd.add_argument("job", help="the PyFlink job script")
    submit_cmd.add_argument("job_args", nargs=argparse.REMAINDER, help="the job's arguments")
    return parser


def _recorded_settings(base_dir: Path) -> ClusterSettings:
    """Settings of the cluster recorded in ``base_dir`` (its REST port)."""
    settings = ClusterSettings(base_dir=base_dir)
    state = ClusterState.load(settings.base)
    return replace(settings, rest_port=state.rest_port) if state else settings


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m flink_agents_memory.cluster up|down|submit|status``."""
    args = _parser().parse_args(argv)
    base_dir = Path(args.dir)
    try:
        if args.command == "up":
            settings = ClusterSettings(base_dir=base_dir, rest_port=args.rest_port,
                                       rpc_port=args.rpc_port, taskmanagers=args.taskmanagers,
                                       slots=args.slots)
            state = start(settings)
            print(f"cluster up: {settings.rest_url} pids {state.processes}")
            return 0
        settings = _recorded_settings(base_dir)
        if args.command == "down":
            print(f"stopped: {stop(settings) or 'nothing was running'}")
        elif args.command == "status":
            print(json.dumps(status(settings), indent=2))
        else:
            _require_state(settings)  # the client reads the REST port from <dir>/conf
            return submit(settings, Path(args.job), args.job_args, args.detached).returncode
    except ClusterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
