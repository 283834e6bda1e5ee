"""A job that applies two agents has two memory-agent operators in its savepoint: the inspector
shows the one ``--operator`` names (by uid or by name), never one picked silently, and without
the option (or with one naming neither) the error names both."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from inspector_agent import EMBEDDER_DIM, InspectorAgent, ReviewerAgent
from savepoints import take_savepoint

from flink_agents_memory.inspector import InspectorError, SavepointView
from flink_agents_memory.models import HashingEmbedder

pytestmark = [pytest.mark.flink, pytest.mark.slow]

#: the uid the job sets on InspectorAgent's stream; ReviewerAgent keeps the package's default
#: uid (from its class), and the tests choose it by its name
INSPECTOR_UID = "inspector-agent"
REVIEWER_NAME = "agent:ReviewerAgent"
REVIEWER_UID = "flink-agents-memory:ReviewerAgent"


def two_agents(out_file: str) -> list[tuple[object, str | None]]:
    return [(InspectorAgent(out_file=out_file), INSPECTOR_UID),
            (ReviewerAgent(out_file=out_file), None)]


@pytest.fixture(scope="module")
def two_agent_savepoint(tmp_path_factory) -> str:
    return take_savepoint(tmp_path_factory.mktemp("two-agents-job"), agents=two_agents)


def fields(node: dict) -> dict:
    return dict(node["fields"])


def open_view(savepoint: str, operator: str | None) -> SavepointView:
    return SavepointView(savepoint, embedder=HashingEmbedder(EMBEDDER_DIM), operator=operator)


def test_the_uid_chooses_the_first_agents_memory(two_agent_savepoint):
    view = open_view(two_agent_savepoint, INSPECTOR_UID)
    try:
        summary = view.subtasks()
        assert summary["operator"] == "agent:InspectorAgent"
        assert summary["operator_uid"] == INSPECTOR_UID
        assert len(summary["memory_operators"]) == 2
        alice = view.key("alice")
        tree = fields(alice["short_term"])
        assert fields(tree["profile"])["name"] == {"type": "str", "value": "Alice"}
        assert "review" not in tree
        texts = {m["memory"] for m in view.memories("alice")["items"]}
        assert "I love green tea in the morning" in texts
        assert not any(t.startswith("review of") for t in texts)
        assert view.search("alice", "peanuts", mode="keyword")["items"][0]["memory"] == (
            "I am allergic to peanuts")
    finally:
        view.close()


def test_the_name_chooses_the_second_agents_memory(two_agent_savepoint):
    view = open_view(two_agent_savepoint, REVIEWER_NAME)
    try:
        assert view.subtasks()["operator"] == REVIEWER_NAME
        assert view.subtasks()["operator_uid"] == REVIEWER_UID
        tree = fields(view.key("alice")["short_term"])
        assert fields(tree["review"])["last"] == {
            "type": "str", "value": "reviewed: My sister lives in Lisbon"}
        assert "profile" not in tree
        texts = {m["memory"] for m in view.memories("alice")["items"]}
        assert texts == {"review of alice: I love green tea in the morning",
                         "review of alice: I am allergic to peanuts",
                         "review of alice: My sister lives in Lisbon"}
        assert view.key("bob")["memories"] == 2
    finally:
        view.close()


def test_without_the_option_the_error_names_both_agents(two_agent_savepoint):
    with pytest.raises(InspectorError, match="holds 2 memory-agent operators") as e:
        open_view(two_agent_savepoint, None)
    message = str(e.value)
    assert f"agent:InspectorAgent (uid {INSPECTOR_UID}, id " in message
    assert f"{REVIEWER_NAME} (uid {REVIEWER_UID}, id " in message
    assert "--operator" in message


def test_an_option_naming_neither_agent_says_what_was_asked_and_what_exists(two_agent_savepoint):
    with pytest.raises(InspectorError, match="--operator 'agent:Nobody' names no operator") as e:
        open_view(two_agent_savepoint, "agent:Nobody")
    assert "agent:InspectorAgent" in str(e.value) and REVIEWER_NAME in str(e.value)


@contextlib.contextmanager
def serve(savepoint: str, *options: str) -> Iterator[subprocess.Popen]:
    """The real command, as a user runs it, on any free port; stopped afterwards, and its pipes
    closed (left open, they end the test run with ResourceWarnings)."""
    with subprocess.Popen(
            [sys.executable, "-m", "flink_agents_memory.cli", "inspect", savepoint, "--port", "0",
             *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        try:
            yield proc
        finally:
            proc.terminate()
            proc.communicate(timeout=30)


def page_url(proc: subprocess.Popen) -> str:
    line = proc.stdout.readline() if proc.stdout else ""
    assert line.startswith("memory inspector: http://127.0.0.1:"), line
    return line.split()[2]


def test_the_command_serves_an_error_page_naming_both_agents(two_agent_savepoint):
    with serve(two_agent_savepoint) as proc:
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(page_url(proc), timeout=30)
        assert e.value.code == 500
        body = e.value.read().decode()
        assert "holds 2 memory-agent operators" in body
        assert "agent:InspectorAgent" in body and REVIEWER_NAME in body and "--operator" in body


def test_the_command_with_the_option_serves_that_agents_memory(two_agent_savepoint):
    with serve(two_agent_savepoint, "--operator", REVIEWER_NAME) as proc:
        url = page_url(proc)
        with urllib.request.urlopen(url + "api/key?key=bob", timeout=30) as r:
            bob = json.loads(r.read())
        assert fields(fields(bob["short_term"])["review"])["last"]["value"] == (
            "reviewed: I play the piano on Sundays")
        assert bob["memories"] == 2
