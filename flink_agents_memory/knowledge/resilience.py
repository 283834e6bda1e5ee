"""A circuit breaker and bounded retries with exponential backoff (no threads, no timers)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half-open"


class TransientError(Exception):
    """A failure worth retrying (connection refused or reset, timeout, HTTP 5xx or 429)."""


class CircuitOpenError(Exception):
    """The breaker is open: the call was not attempted."""

    def __init__(self, retry_in_s: float) -> None:
        super().__init__(f"circuit open after repeated failures; next try in {retry_in_s:.1f}s")
        self.retry_in_s = retry_in_s


class CircuitBreaker:
    """Opens after ``failure_threshold`` consecutive failed calls; after ``reset_timeout_s`` it
    is half-open and lets one trial call through: success closes it, failure opens it again.

    ``clock`` is injectable for tests. Thread-safe; picklable (the state starts closed again).
    """

    def __init__(self, failure_threshold: int = 3, reset_timeout_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if failure_threshold < 1:
            raise ValueError(f"failure_threshold must be >= 1, got {failure_threshold}")
        if reset_timeout_s < 0:
            raise ValueError(f"reset_timeout_s must be >= 0, got {reset_timeout_s}")
        self.failure_threshold = failure_threshold
        self.reset_timeout_s = reset_timeout_s
        self._clock = clock
        self._init_state()

    def _init_state(self) -> None:
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_in_flight = False
        self.times_opened = 0

    @property
    def state(self) -> str:
        with self._lock:
            return self._state_locked()

    def _state_locked(self) -> str:
        if self._opened_at is None:
            return CLOSED
        if self._clock() - self._opened_at >= self.reset_timeout_s:
            return HALF_OPEN
        return OPEN

    def before_call(self) -> bool:
        """Raise CircuitOpenError if the call may not go ahead; True if it is the half-open
        trial (the caller should then not retry)."""
        with self._lock:
            state = self._state_locked()
            if state == CLOSED:
                return False
            if state == HALF_OPEN and not self._trial_in_flight:
                self._trial_in_flight = True
                return True
            assert self._opened_at is not None
            wait = max(0.0, self.reset_timeout_s - (self._clock() - self._opened_at))
            raise CircuitOpenError(wait)

    def record_success(self) -> None:
        with self._lock:
            self._failures = 0
            self._opened_at = None
            self._trial_in_flight = False

    def record_failure(self) -> None:
        with self._lock:
            self._failures += 1
            was_trial = self._trial_in_flight
            self._trial_in_flight = False
            if was_trial or self._failures >= self.failure_threshold:
                if self._opened_at is None or was_trial:
                    self.times_opened += 1
                self._opened_at = self._clock()

    def __getstate__(self) -> dict[str, Any]:
        return {"failure_threshold": self.failure_threshold,
                "reset_timeout_s": self.reset_timeout_s, "_clock": self._clock}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_state()


def call_with_retries(fn: Callable[[], T], retries: int, backoff_s: float,
                      max_backoff_s: float = 5.0,
                      sleep: Callable[[float], None] = time.sleep) -> T:
    """``fn()``, retried up to ``retries`` times on TransientError, sleeping
    ``backoff_s * 2**attempt`` (capped) in between; the last TransientError propagates."""
    for attempt in range(retries + 1):
        try:
            return fn()
        except TransientError:
            if attempt >= retries:
                raise
            sleep(min(max_backoff_s, backoff_s * 2**attempt))
    raise AssertionError("unreachable")  # pragma: no cover
