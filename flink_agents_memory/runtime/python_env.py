"""The PyFlink settings every agent job needs, set by the package so users never have to.

Without ``python.executable`` a job fails with "No module named pyflink" and restarts forever;
thread mode also needs this environment's site-packages on the embedded interpreter's path
(module ``pemja`` not found otherwise). Process mode cannot host the memory operator, so it
is rejected here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pyflink.datastream import StreamExecutionEnvironment

import flink_agents_memory

from ..errors import ConfigurationError
from .jars import operator_jar
from .pyflink_internals import j_env_configuration

EXECUTION_MODE = "python.execution-mode"
PYTHON_EXECUTABLE = "python.executable"
PYTHON_PATH = "python.pythonpath"
PIPELINE_JARS = "pipeline.jars"


def package_root() -> str:
    """The directory that holds the ``flink_agents_memory`` package: site-packages for an
    installed wheel, the checkout for an editable install."""
    return str(Path(flink_agents_memory.__file__).resolve().parent.parent)


def python_path_entries() -> list[str]:
    """This interpreter's import path (site-packages, the package, the job's own modules)."""
    seen: list[str] = []
    # The package's own root first: an editable install is found through an import hook,
    # not a sys.path entry, and the embedded interpreter does not run that hook.
    for entry in [package_root(), *sys.path]:
        path = os.path.abspath(entry or os.getcwd())
        if os.path.isdir(path) and path not in seen:
            seen.append(path)
    return seen


def configure_environment(env: StreamExecutionEnvironment) -> None:
    """Set thread mode, the interpreter, its path and the operator jar on ``env``."""
    conf = j_env_configuration(env)
    mode = conf.getString(EXECUTION_MODE, None)
    if mode is not None and mode != "thread":
        raise ConfigurationError(
            f"{EXECUTION_MODE}={mode!r} cannot host the memory operator: agent jobs run in "
            "thread mode (Python inside the TaskManager JVM); remove that setting"
        )
    conf.setString(EXECUTION_MODE, "thread")
    if conf.getString(PYTHON_EXECUTABLE, None) is None:
        conf.setString(PYTHON_EXECUTABLE, sys.executable)
    existing = conf.getString(PYTHON_PATH, None)
    entries = python_path_entries()
    if existing:
        entries = [*existing.split(os.pathsep), *[e for e in entries if e not in existing]]
    conf.setString(PYTHON_PATH, os.pathsep.join(entries))
    jar_url = operator_jar().as_uri()
    if jar_url not in (conf.getString(PIPELINE_JARS, None) or ""):
        env.add_jars(jar_url)
