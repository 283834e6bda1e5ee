"""Circuit breaker, retries with backoff, and KnowledgeBase over real loopback HTTP failures."""

from __future__ import annotations

import pickle

import pytest
from knowledge_http import StatusServer, closed_port

from flink_agents_memory.knowledge import (
    CircuitBreaker,
    CircuitOpenError,
    KnowledgeBase,
    KnowledgeUnavailableError,
    TransientError,
)
from flink_agents_memory.knowledge.resilience import call_with_retries


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_opens_after_threshold_and_half_opens_after_cooldown():
    clock = Clock()
    b = CircuitBreaker(failure_threshold=3, reset_timeout_s=10, clock=clock)
    for _ in range(2):
        assert b.before_call() is False
        b.record_failure()
    assert b.state == "closed"
    b.before_call()
    b.record_failure()
    assert b.state == "open" and b.times_opened == 1
    with pytest.raises(CircuitOpenError, match="next try in 10.0s"):
        b.before_call()
    clock.t = 10
    assert b.state == "half-open"
    assert b.before_call() is True              # the single trial
    with pytest.raises(CircuitOpenError):
        b.before_call()                         # a second caller waits for the trial
    b.record_failure()                          # trial failed: open again, new cool-down
    assert b.state == "open" and b.times_opened == 2
    clock.t = 20
    assert b.before_call() is True
    b.record_success()
    assert b.state == "closed"
    assert b.before_call() is False


def test_success_resets_the_consecutive_count():
    b = CircuitBreaker(failure_threshold=2, reset_timeout_s=10, clock=Clock())
    b.record_failure()
    b.record_success()
    b.record_failure()
    assert b.state == "closed"


def test_breaker_pickles_closed():
    clock = Clock()
    b = CircuitBreaker(failure_threshold=1, reset_timeout_s=10, clock=clock)
    b.record_failure()
    assert b.state == "open"
    assert pickle.loads(pickle.dumps(CircuitBreaker(1, 5))).state == "closed"


def test_retries_back_off_exponentially_and_are_bounded():
    sleeps: list[float] = []
    calls = []

    def fail():
        calls.append(1)
        raise TransientError("down")

    with pytest.raises(TransientError):
        call_with_retries(fail, retries=3, backoff_s=0.1, max_backoff_s=0.3, sleep=sleeps.append)
    assert len(calls) == 4
    assert sleeps == pytest.approx([0.1, 0.2, 0.3])


def test_unreachable_service_raises_clear_error_then_opens_circuit():
    url = f"http://127.0.0.1:{closed_port()}"
    kb = KnowledgeBase(url, sources=["docs"], retries=1, backoff_s=0.01, failure_threshold=2,
                       reset_timeout_s=60)
    for _ in range(2):
        with pytest.raises(KnowledgeUnavailableError, match=f"{url} unavailable.*2 attempt"):
            kb.search("x")
    with pytest.raises(KnowledgeUnavailableError, match="circuit open"):
        kb.search("x")


def test_5xx_is_retried_and_counted_by_the_breaker():
    with StatusServer(503) as server:
        kb = KnowledgeBase(server.url, sources=["docs"], retries=2, backoff_s=0.01,
                           failure_threshold=2, reset_timeout_s=60, on_error="empty")
        assert kb.search("a") == [] and kb.search("b") == []
        assert len(server.requests) == 6        # 2 calls x 3 attempts
        assert kb.search("c") == []             # circuit open: not even tried
        assert len(server.requests) == 6
        assert kb.warning_count == 3
        assert kb.breaker.state == "open"


def test_half_open_trial_recovers(monkeypatch):
    with StatusServer(503) as server:
        kb = KnowledgeBase(server.url, retries=0, failure_threshold=1, reset_timeout_s=0.05,
                           on_error="empty")
        assert kb.get_sources() == []
        assert kb.breaker.state in ("open", "half-open")
        server.status, server.body = 200, []    # the service comes back (no collections)
        import time

        time.sleep(0.06)
        assert kb.get_sources() == []           # answered by the server this time
        assert kb.breaker.state == "closed"
        assert kb.warning_count == 1


def test_read_timeout_is_a_transient_failure():
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)                           # accepts, never answers
    accepted = []
    threading.Thread(target=lambda: accepted.append(listener.accept()), daemon=True).start()
    try:
        kb = KnowledgeBase(f"http://127.0.0.1:{listener.getsockname()[1]}", sources=["s"],
                           timeout_s=0.3, retries=0)
        with pytest.raises(KnowledgeUnavailableError, match="timed out"):
            kb.search("x")
    finally:
        listener.close()
        for conn, _ in accepted:
            conn.close()


def test_knowledge_base_pickles_without_runtime_state():
    kb = KnowledgeBase("http://127.0.0.1:9", sources=["docs"], on_error="empty", retries=0)
    kb.get_sources()
    kb.search("x")
    assert kb.warning_count == 1
    copy = pickle.loads(pickle.dumps(kb))
    assert copy.warning_count == 0 and copy.breaker.state == "closed"
    assert copy.sources == ["docs"] and copy.on_error == "empty"


def test_bad_arguments():
    with pytest.raises(ValueError, match="on_error"):
        KnowledgeBase("http://127.0.0.1:1", on_error="ignore")
    with pytest.raises(ValueError, match="credentials"):
        KnowledgeBase("http://user:pw@127.0.0.1:1")
    with pytest.raises(ValueError, match="http"):
        KnowledgeBase("127.0.0.1:1")
    with pytest.raises(ValueError, match="limit"):
        KnowledgeBase("http://127.0.0.1:1").search("x", limit=0)
