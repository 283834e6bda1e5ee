"""``flink-agents-memory inspect``: arguments, defaults and the embedder/agent specs."""

from __future__ import annotations

import pytest

from flink_agents_memory.cli import build_parser
from flink_agents_memory.errors import ConfigurationError
from flink_agents_memory.inspector.cli import load_object, make_embedder
from flink_agents_memory.models import HashingEmbedder


def test_defaults_to_loopback():
    args = build_parser().parse_args(["inspect", "some/savepoint"])
    assert (args.host, args.port, args.token, args.agent, args.embedder) == (
        "127.0.0.1", 8765, None, None, None)


def test_operator_option_is_passed_through():
    assert build_parser().parse_args(["inspect", "sp"]).operator is None
    args = build_parser().parse_args(["inspect", "sp", "--operator", "agent:SupportAgent"])
    assert args.operator == "agent:SupportAgent"


def test_hashing_embedder_spec():
    assert make_embedder("hashing:32", None).dim == 32
    with pytest.raises(ConfigurationError, match="integer DIM"):
        make_embedder("hashing:many", None)


def test_embedder_from_a_class_or_the_agent():
    assert isinstance(make_embedder("flink_agents_memory.models:HashingEmbedder", None),
                      HashingEmbedder)
    from inspector_agent import EMBEDDER_DIM, InspectorAgent

    assert make_embedder(None, InspectorAgent).dim == EMBEDDER_DIM
    assert make_embedder(None, None) is None


@pytest.mark.parametrize(("spec", "message"), [
    ("no_colon", "must look like module:Name"),
    ("no_such_module_xyz:Thing", "cannot load"),
    ("flink_agents_memory.models:NoSuchThing", "cannot load"),
])
def test_bad_specs_are_clear_errors(spec, message):
    with pytest.raises(ConfigurationError, match=message):
        load_object(spec, "--agent")


def test_the_command_serves_the_error_page_of_a_missing_savepoint(tmp_path):
    """The real command, as a user runs it: it prints the URL, the page names the problem."""
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    missing = tmp_path / "no-such-savepoint"
    # `with`: the pipes are closed afterwards (left open, they end the run with ResourceWarnings)
    with subprocess.Popen(
            [sys.executable, "-m", "flink_agents_memory.cli", "inspect", str(missing), "--port",
             "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        try:
            line = proc.stdout.readline() if proc.stdout else ""
            assert line.startswith("memory inspector: http://127.0.0.1:"), line
            url = line.split()[2]
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(url, timeout=10)
            assert e.value.code == 500
            assert "the directory does not exist" in e.value.read().decode()
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=30)
    assert "the directory does not exist" in err
