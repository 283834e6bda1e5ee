"""Every example names its job: unnamed, the web UI, `flink list` and the REST API show each of
them as "DataStream Collect" (or "Flink Streaming Job"), and a user cannot tell which is which."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUNS = {"execute", "execute_async", "execute_and_collect"}


def job_runs(tree: ast.AST) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr in RUNS]


def named(call: ast.Call) -> bool:
    first = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg in ("job_name", "job_execution_name")), None)
    return isinstance(first, ast.Constant) and isinstance(first.value, str) and bool(first.value)


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.name)
def test_every_example_job_has_a_name(example):
    runs = job_runs(ast.parse(example.read_text()))
    assert runs, "no job run found: the check would pass for nothing"
    assert [ast.unparse(c) for c in runs if not named(c)] == []
