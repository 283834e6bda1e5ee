"""The package works from an installed wheel, with no repository checkout behind it.

The wheel is built from a copy of the package (so nothing is written into the checkout) and
installed into a fresh virtual environment outside the repository; the demo job then runs
from a directory outside the repository too. The fresh environment takes its third-party
dependencies (PyFlink, pydantic, numpy) from this test environment's site-packages through a
``.pth`` line, which adds that directory to ``sys.path`` without running its editable-install
hook, so ``flink_agents_memory`` can only come from the wheel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def run(args: list[str], cwd: Path, timeout: int = 600) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_demo_runs_from_the_installed_wheel(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    assert not tmp.resolve().is_relative_to(ROOT)
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "flink_agents_memory", src / "flink_agents_memory",
                    ignore=shutil.ignore_patterns("__pycache__"))
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"),
         str(src)], cwd=tmp)
    wheel = next((tmp / "dist").glob("flink_agents_memory-*.whl"))

    venv = tmp / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp)
    python = venv / "bin" / "python"
    site = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
               cwd=tmp).strip()
    Path(site, "_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", "-q", str(wheel)], cwd=tmp)

    job = tmp / "job"
    job.mkdir()
    shutil.copy(ROOT / "examples" / "demo.py", job / "demo.py")
    where = run([str(python), "-c", "import flink_agents_memory as f; print(f.__file__)"],
                cwd=job).strip()
    assert Path(where).is_relative_to(venv), where

    replies = run([str(python), "demo.py"], cwd=job).splitlines()
    replies = [line for line in replies if line.startswith("[")]
    assert len(replies) == 6
    assert "[alice] message #3: hello Alice, you said 'bye'" in replies
    assert "[bob] message #3: hello Bob, you said 'do you remember me?'" in replies
