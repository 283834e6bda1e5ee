"""What every benchmark shares: the machine description, timing, medians.

Importing it gives every JVM the benchmarks start (PyFlink's local JVM, in this process and in
the workers, which inherit the environment) the vector module flag, as the clusters give their
TaskManagers (flink_agents_memory/vector_module.py): figures are for that configuration unless a
row says otherwise.
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyflink.common import Configuration, Types, WatermarkStrategy
from pyflink.datastream import DataStream, StreamExecutionEnvironment
from pyflink.datastream.connectors.number_seq import NumberSequenceSource

from flink_agents_memory.vector_module import VECTOR_MODULE, add_to_local_jvm

add_to_local_jvm()


def machine() -> dict[str, Any]:
    """Cores, memory and versions, stated beside every figure."""
    from pyflink import version

    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "cores": os.cpu_count(),
        "memory_gb": round(mem_gb, 1),
        "python": platform.python_version(),
        "apache_flink": version.__version__,
        "jvm_args": os.environ.get("JVM_ARGS", ""),
    }


def jvm_args_without_vector_module() -> str:
    """``JVM_ARGS`` for a worker whose JVM scores vectors with Lucene's scalar dot product."""
    return re.sub(rf"--add-modules[= ]{re.escape(VECTOR_MODULE)}", "",
                  os.environ.get("JVM_ARGS", "")).strip()


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def summary(samples: list[float]) -> dict[str, float]:
    """Median with min and max (the figures in docs/benchmarks.md)."""
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def bench_env(parallelism: int = 1, backend: str = "hashmap") -> StreamExecutionEnvironment:
    """A local environment; ``backend`` is Flink's ``state.backend.type``."""
    conf = Configuration()
    conf.set_string("state.backend.type", backend)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    return env


def keyed_input(env: StreamExecutionEnvironment, events: int, keys: int) -> DataStream:
    """``"k<i % keys>|<i>"`` from a bounded sequence source."""
    return env.from_source(
        NumberSequenceSource(0, events - 1), WatermarkStrategy.no_watermarks(), "events"
    ).map(lambda i: f"k{i % keys}|{i}", output_type=Types.STRING())


# -- shared by the suite (run.py and every bench module) ---------------------------------------

ROOT = Path(__file__).resolve().parents[1]
#: Peer frameworks live in their own virtual environments, never in .venv
#: (``BENCH_PEER_VENVS`` points elsewhere, e.g. to check the suite fails without them).
PEER_VENVS = Path(os.environ.get("BENCH_PEER_VENVS") or ROOT / ".bench" / "venvs")
WORK = ROOT / ".bench" / "work"


class PeerUnavailable(RuntimeError):
    """A peer could not be run: the comparison is missing and the suite must fail."""


def peer_python(name: str) -> str:
    """The interpreter of peer ``name``'s venv (``make bench`` creates it)."""
    exe = PEER_VENVS / name / "bin" / "python"
    if not exe.exists():
        raise PeerUnavailable(
            f"peer venv {exe} is missing: run `make bench-peers` (or make bench)"
        )
    return str(exe)


def run_worker(python: str, module: str, args: list[str], timeout_s: float = 3600,
               env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``python -m module args --out <file>`` from the repo root; return its JSON result."""
    import json
    import subprocess
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [python, "-m", module, *args, "--out", out]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s,
                          env={**os.environ, **(env or {})})
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-4000:]
        raise RuntimeError(f"worker {module} {' '.join(args)} failed ({proc.returncode}):\n{tail}")
    with open(out) as f:
        result = json.load(f)
    os.unlink(out)
    return result


#: The HNSW beam every search used before the default beam was calibrated per segment.
PRE_CALIBRATION_BEAM = 200


def default_beam_label(measured: dict[str, Any]) -> str:
    """The default beam a measurement searched at: ``calibrated: N`` where the run recorded
    its index's calibrated beam (``hnsw_beam``), the fixed 200 of runs before that."""
    beam = measured.get("hnsw_beam")
    return str(PRE_CALIBRATION_BEAM) if beam is None else f"calibrated: {beam}"


def percentiles(samples: Any, qs: tuple[float, ...] = (50, 95, 99)) -> dict[str, float]:
    import numpy as np

    arr = np.asarray(samples, dtype=float)
    if arr.size == 0:
        return {f"p{int(q)}": float("nan") for q in qs}
    return {f"p{int(q)}": float(np.percentile(arr, q)) for q in qs}


def abba(names: list[str], rep: int) -> list[str]:
    """The order of ``names`` in repetition ``rep``: A B, B A, A B, ... against drift."""
    return list(names) if rep % 2 == 0 else list(reversed(names))


def save_figure(fig: Any, img_dir: Any, name: str) -> list[str]:
    """Write a plot to docs/img (the suite's ``plot()`` return value)."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path = img_dir / name
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path.name]


def module_main(run: Callable[[bool], dict[str, Any]], doc: str | None) -> None:
    """``python -m benchmarks.bench_X [--quick]``: run one module and print its JSON."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--quick", action="store_true")
    print(json.dumps(run(parser.parse_args().quick), indent=2))
