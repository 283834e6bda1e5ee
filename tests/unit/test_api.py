"""The user API is one package: every public name importable from it, light to import,
with self-explaining names (the designs' names kept as aliases)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pydantic
import pytest

import flink_agents_memory as api
from flink_agents_memory import KnowledgeItem, MemoryAPI, RunnerContext

ROOT = Path(__file__).resolve().parents[2]

#: What the package promises its users (the issue's list plus what examples need).
PUBLIC = [
    "Agent", "action", "RunnerContext", "Event", "InputEvent", "OutputEvent",
    "FlinkAgentsMemoryError", "ConfigurationError", "MemoryPathError", "MemoryValueError",
    "MemoryNotFoundError", "AgentDefinitionError", "RunError", "ActionFailedError",
    "UnhandledEventError", "RunawayRunError",
    "LongTermMemoryConfig", "AgentConfig", "StateTtl", "Retention",
    "MemoryAPI", "MemoryItem", "MemoryEvent", "MemoryObject", "MemoryRef", "History",
    "KnowledgeBase", "KnowledgeItem", "AgentsExecutionEnvironment", "AgentBuilder",
    "HashingEmbedder", "OpenAICompatibleLLM", "register_type",
]


@pytest.mark.parametrize("name", sorted(set(PUBLIC) | set(api.__all__)))
def test_every_public_name_is_importable_from_the_package(name):
    assert name in api.__all__
    assert getattr(api, name) is not None


def test_unknown_name_is_a_clear_attribute_error():
    with pytest.raises(AttributeError, match="NoSuchThing"):
        api.NoSuchThing  # noqa: B018


def test_declaring_an_agent_imports_neither_numpy_nor_pyflink_nor_embedders():
    script = """
import sys
from flink_agents_memory import (Agent, AgentConfig, InputEvent, LongTermMemoryConfig,
                                 Retention, StateTtl, action)

class A(Agent):
    histories = {"chat": Retention(max_items=5)}
    short_term_retention = {"conv.messages": Retention(max_items=3)}
    long_term_memory = LongTermMemoryConfig(ttl_ms=1000)

    @action(InputEvent)
    def go(self, event, ctx):
        pass

A().validate()
AgentConfig(state_ttl=StateTtl(ttl_ms=5), sensory_window=3)
heavy = [m for m in sys.modules
         if m.split(".")[0] in ("numpy", "pyflink", "pemja")
         or m.startswith("flink_agents_memory.models")
         or m.startswith("flink_agents_memory.runtime.environment")]
print(heavy)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout


def test_lazy_names_load_their_modules_on_first_use():
    script = ("import sys, flink_agents_memory as f; f.HashingEmbedder; "
              "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "True"


def test_runner_context_declares_memory_named_history_and_now_ms():
    assert {"memory", "named_history", "now_ms", "key", "send_event",
            "get_short_term_memory", "search_knowledge"} <= RunnerContext.__abstractmethods__
    # the designs' names stay, as aliases that are not abstract
    assert "history" not in RunnerContext.__abstractmethods__


def test_memory_api_names_explain_themselves_and_keep_the_designs_names():
    assert {"recent_memories", "audit_trail"} <= MemoryAPI.__abstractmethods__
    assert not {"get_history", "history"} & MemoryAPI.__abstractmethods__


def test_knowledge_item_takes_the_designs_positional_arguments():
    item = KnowledgeItem("chunk text", "docs", 0.75, {"file": "a.md"})
    assert (item.content, item.source, item.score, item.metadata, item.id) == (
        "chunk text", "docs", 0.75, {"file": "a.md"}, None)
    assert KnowledgeItem(content="c", source="s", score=1, id="x").id == "x"
    assert KnowledgeItem.model_validate(item.model_dump()) == item


@pytest.mark.parametrize("args, kwargs, field", [
    (("c", "s"), {}, "score"),
    (("c",), {"score": 0.1}, "source"),
    (("c", "s", "high"), {}, "score"),
    (("c", "s", 0.1, "not a dict"), {}, "metadata"),
])
def test_knowledge_item_bad_arguments_name_the_field(args, kwargs, field):
    with pytest.raises(pydantic.ValidationError, match=field):
        KnowledgeItem(*args, **kwargs)


def _imports(tree: ast.AST) -> list[str]:
    return [node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
            and node.module.startswith("flink_agents_memory")]


@pytest.mark.parametrize("example", sorted((ROOT / "examples").glob("*.py")),
                         ids=lambda p: p.name)
def test_examples_import_only_from_the_package(example):
    modules = _imports(ast.parse(example.read_text()))
    assert modules and set(modules) == {"flink_agents_memory"}, modules


def test_docs_import_only_from_the_package():
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = {m for path in texts
             for m in re.findall(r"from (flink_agents_memory[\w.]*) import", path.read_text())}
    assert found == {"flink_agents_memory"}, found
