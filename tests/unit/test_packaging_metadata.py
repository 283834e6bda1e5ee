"""pyproject.toml in the forms setuptools reads without its deprecation warnings: a table
`project.license` printed a warning block for every wheel built (the tests build several)."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_the_license_is_an_spdx_string_that_the_build_backend_understands():
    meta = tomllib.loads(PYPROJECT.read_text())
    assert meta["project"]["license"] == "Apache-2.0"
    # SPDX licence strings and licence classifiers together are an error in setuptools >= 77
    assert [c for c in meta["project"].get("classifiers", []) if c.startswith("License ::")] == []
    assert "setuptools>=77" in meta["build-system"]["requires"]
