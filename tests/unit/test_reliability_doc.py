"""docs/reliability.md: every row of the faults table names the tests behind it, as
``tests/<file>.py::<test function>``, and each of those exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reliability.md"
REF = re.compile(r"`([^`]*)`")


def fault_rows() -> list[list[str]]:
    """The cells of each row of the first table (faults and bad inputs)."""
    rows, in_table = [], False
    for line in DOC.read_text().splitlines():
        if line.startswith("| fault or bad input"):
            in_table = True
            continue
        if in_table and not line.startswith("|"):
            break
        if in_table and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def functions_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name.startswith("test_")}


def test_every_row_names_existing_test_functions():
    rows = fault_rows()
    assert len(rows) > 20
    missing = []
    for cells in rows:
        assert len(cells) == 4, cells
        refs = [r for r in REF.findall(cells[1]) if r.startswith("tests/")]
        if not refs or any("::" not in r for r in refs):
            missing.append(f"{cells[0][:60]}: names no test function ({cells[1][:80]})")
            continue
        for ref in refs:
            file, _, name = ref.partition("::")
            path = ROOT / file
            if not path.is_file():
                missing.append(f"{ref}: no such file")
            elif name not in functions_in(path):
                missing.append(f"{ref}: no such test function")
    assert missing == []
