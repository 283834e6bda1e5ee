"""Shared fixtures and CI's rule for skips. tests/ is on sys.path, so scenario modules import
in the TaskManager too."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The Chroma server `make install-knowledge` builds in the checkout: the package looks for it
# only through $CHROMA_BIN (or PATH), never in a checkout's layout.
_CHROMA = Path(__file__).resolve().parents[1] / ".venv-chroma" / "bin" / "chroma"
if "CHROMA_BIN" not in os.environ and _CHROMA.is_file():
    os.environ["CHROMA_BIN"] = str(_CHROMA)

IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    """In CI (CI=true) a skipped test is a failure: CI exists to run the paths users take
    (Docker, the browser, both embedder backends, root-only fault mounts)."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped in CI (CI=true), where every test must run: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    """The same rule for a module that skips itself while collected (``importorskip``)."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped:
        report.outcome = "failed"
        report.longrepr = f"skipped in CI (CI=true), where every test must run: {report.longrepr}"
