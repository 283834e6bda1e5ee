"""The api key is sent, but never logged, shown in a repr or put into an error message."""

from __future__ import annotations

import logging
import pickle

import pytest
from knowledge_http import StatusServer, closed_port

from flink_agents_memory.cli import main
from flink_agents_memory.knowledge import (
    KnowledgeAuthError,
    KnowledgeBase,
    KnowledgeUnavailableError,
)

KEY = "sk-test-very-secret-4242"


def assert_clean(*texts: str) -> None:
    for text in texts:
        assert KEY not in text and "4242" not in text, text


@pytest.mark.parametrize("status", [401, 403])
def test_rejected_credentials(status, caplog):
    caplog.set_level(logging.DEBUG)
    with StatusServer(status) as server:
        kb = KnowledgeBase(server.url, api_key=KEY, on_error="empty")
        with pytest.raises(KnowledgeAuthError, match=f"{status}.*rejected the credentials") as e:
            kb.search("x")          # never swallowed by on_error="empty": it is configuration
        _, _, headers = server.requests[0]
        assert headers["Authorization"] == f"Bearer {KEY}"
        assert headers["X-Chroma-Token"] == KEY
    assert len(server.requests) == 1    # not retried
    assert_clean(str(e.value), repr(e.value), caplog.text, repr(kb), repr(kb.backend))


def test_outage_messages_and_warnings_do_not_show_the_key(caplog):
    caplog.set_level(logging.DEBUG)
    kb = KnowledgeBase(f"http://127.0.0.1:{closed_port()}", api_key=KEY, sources=["s"],
                       retries=1, backoff_s=0.01)
    with pytest.raises(KnowledgeUnavailableError) as e:
        kb.search("x")
    quiet = KnowledgeBase(kb.service_url, api_key=KEY, sources=["s"], retries=0,
                          on_error="empty")
    assert quiet.search("x") == []
    assert quiet.warning_count == 1
    assert "knowledge unavailable" in caplog.text
    assert_clean(str(e.value), caplog.text, repr(kb), str(kb))


def test_api_key_env_is_read_where_the_job_runs_and_not_pickled(monkeypatch):
    monkeypatch.setenv("TEST_KNOWLEDGE_KEY", KEY)
    with StatusServer(401) as server:
        kb = KnowledgeBase(server.url, api_key_env="TEST_KNOWLEDGE_KEY")
        assert KEY.encode() not in pickle.dumps(kb)
        with pytest.raises(KnowledgeAuthError):
            pickle.loads(pickle.dumps(kb)).get_sources()
        assert server.requests[0][2]["Authorization"] == f"Bearer {KEY}"


def test_cli_takes_the_key_from_the_environment_only(monkeypatch, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("KNOWLEDGE_API_KEY", KEY)
    with StatusServer(403) as server:
        assert main(["-v", "knowledge", "list", "--url", server.url]) == 1
        assert server.requests[0][2]["X-Chroma-Token"] == KEY
    out = capsys.readouterr()
    assert "rejected the credentials" in out.err
    assert_clean(out.out, out.err, caplog.text)
