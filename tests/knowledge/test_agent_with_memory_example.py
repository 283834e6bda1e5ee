"""examples/agent_with_memory.py as a user runs it: knowledge ingested into a real Chroma
server with the CLI, then the job on a MiniCluster (recent memories, semantic search of the
user's past interactions, knowledge, a new memory per interaction)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = Path(sys.executable).parent / "flink-agents-memory"


def test_agent_with_memory_example(chroma):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    subprocess.run([str(CLI), "knowledge", "ingest", "--url", chroma.url, "--source",
                    "example-docs", str(ROOT / "examples" / "data")],
                   check=True, capture_output=True, timeout=300, env=env)
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "agent_with_memory.py"),
                           "--url", chroma.url, "--source", "example-docs"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    blocks = [b for b in done.stdout.split("\n[") if b.strip()]
    assert len(blocks) == 6, done.stdout
    alice = [b for b in blocks if b.lstrip("[").startswith("alice]")]
    # alice's interactions: the n-th sees n-1 recent memories and recalls earlier ones
    assert [f"recent history: {n} item(s)" in b for n, b in enumerate(alice)] == [True] * 4
    last = alice[-1]
    assert "  memory  " in last and "How does Flink restore state after a failure?" in last
    # every answer quotes the ingested knowledge
    assert all("  knowledge " in b and "example-docs/" in b for b in blocks)
