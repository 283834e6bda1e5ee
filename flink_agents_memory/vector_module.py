"""The JVM flag that gives long-term memory its SIMD dot product, for JVMs that can take it.

The operator jar scores vectors with the JDK's incubating vector API when the TaskManager's JVM
resolves ``jdk.incubator.vector`` (Java 17 ships it, but resolves it only on request), and with
Lucene's scalar loop otherwise. A JVM without the module (Java 11) refuses to start with the
flag, so it is added only where the Java version is known to have it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import MutableMapping
from pathlib import Path

VECTOR_MODULE = "jdk.incubator.vector"
VECTOR_MODULE_FLAG = f"--add-modules={VECTOR_MODULE}"
TASKMANAGER_JAVA_OPTS = "env.java.opts.taskmanager"
FIRST_JAVA_WITH_MODULE = 17

_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')


def java_executable() -> str | None:
    """The java Flink's scripts start: ``$JAVA_HOME/bin/java``, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def feature_version(version_output: str) -> int | None:
    """17 for ``openjdk version "17.0.15"``, 8 for ``"1.8.0_402"``; None if not found."""
    match = _VERSION.search(version_output)
    if match is None:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def java_feature_version(java: str | None) -> int | None:
    """The feature version of ``java`` (None if it is missing or does not say)."""
    if java is None:
        return None
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return feature_version(done.stderr + done.stdout)


def with_vector_module(conf: dict[str, str], java_version: int | None) -> dict[str, str]:
    """``conf`` whose TaskManagers resolve the vector module, if ``java_version`` has it.

    The flag is appended to the TaskManagers' own JVM options, kept as the user set them.
    """
    if not _has_module(java_version):
        return conf
    return {**conf, TASKMANAGER_JAVA_OPTS: _with_flag(conf.get(TASKMANAGER_JAVA_OPTS, ""))}


def add_to_taskmanagers(conf: dict[str, str]) -> dict[str, str]:
    """:func:`with_vector_module` for the Java that Flink's scripts here will start."""
    return with_vector_module(conf, java_feature_version(java_executable()))


def add_to_local_jvm(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Adds the flag to ``JVM_ARGS``, which PyFlink passes to the JVM it starts for a local run
    (a MiniCluster in the Python process), if that JVM's Java has the module.

    Call it before the first ``StreamExecutionEnvironment`` of the process; a JVM already
    started keeps its flags. True if ``JVM_ARGS`` now asks for the module.
    """
    args = environ.get("JVM_ARGS", "")
    if VECTOR_MODULE in args:
        return True  # without starting java to ask its version
    if not _has_module(java_feature_version(java_executable())):
        return False
    environ["JVM_ARGS"] = _with_flag(args)
    return True


def _has_module(java_version: int | None) -> bool:
    return java_version is not None and java_version >= FIRST_JAVA_WITH_MODULE


def _with_flag(opts: str) -> str:
    """JVM options ``opts`` with the flag appended, unless they already ask for the module."""
    return opts if VECTOR_MODULE in opts else f"{opts} {VECTOR_MODULE_FLAG}".strip()
