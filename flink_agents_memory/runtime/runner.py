"""The agent loop of one run, independent of Flink so it can be tested on its own."""

from __future__ import annotations

from collections import deque
from collections.abc import Coroutine, Generator
from typing import Any

from ..agent import ActionSpec
from ..errors import ActionFailedError, RunawayRunError, UnhandledEventError
from ..events import Event, InputEvent, OutputEvent
from ..metrics import MetricsRecorder
from .calls import PendingCall, run_inline
from .config import AgentConfig
from .run_context import RunContext


def input_event(value: Any) -> InputEvent:
    """``InputEvent(input=value)`` without pydantic's validation (the field is ``Any``, so it
    checks nothing): one per run, and validating it cost as much as two state accesses."""
    event = _new(InputEvent)
    _set(event, "__dict__", {"input": value})
    _set(event, "__pydantic_fields_set__", {"input"})
    _set(event, "__pydantic_extra__", None)
    _set(event, "__pydantic_private__", None)
    return event


_new = object.__new__
_set = object.__setattr__


class AgentRunner:
    """Runs every action listening to each queued event until the queue is empty."""

    def __init__(self, actions: list[ActionSpec], config: AgentConfig,
                 metrics: MetricsRecorder | None = None) -> None:
        self._actions = actions
        self._config = config
        #: Per event type: (is an OutputEvent, its listeners); pydantic's isinstance is slow.
        self._routes: dict[type, tuple[bool, list[ActionSpec]]] = {}
        self._metrics = metrics or MetricsRecorder(enabled=False)
        self._names = {a.name: (f"agent.action.{a.name}.calls", f"agent.action.{a.name}.failures")
                       for a in actions}
        #: Action calls since the last metrics flush, counted here (a dict increment) rather
        #: than through the recorder (a call) on every run.
        self._calls = dict.fromkeys(self._names, 0)
        self._metrics.add_collector(self._collect)
        #: Events handled by the last run (for metrics).
        self.last_events = 0

    def _collect(self) -> dict[str, int]:
        out = {self._names[name][0]: n for name, n in self._calls.items() if n}
        self._calls = dict.fromkeys(self._names, 0)
        return out

    def _route(self, event_type: type) -> tuple[bool, list[ActionSpec]]:
        route = self._routes.get(event_type)
        if route is None:
            route = (issubclass(event_type, OutputEvent),
                     [a for a in self._actions if issubclass(event_type, a.listens)])
            self._routes[event_type] = route
        return route

    def run(self, value: Any, ctx: RunContext) -> list[Any]:
        """Process one input element to its end, making any awaited call on this thread;
        returns the outputs of its OutputEvents, in order.

        Raises a RunError subclass when the run fails; the caller then discards its writes.
        """
        return run_inline(self.steps(value, ctx))

    def steps(self, value: Any, ctx: RunContext) -> Generator[PendingCall, PendingCall, list[Any]]:
        """One run as a generator: it yields each call an async action awaits and is sent the
        call back once settled; it returns the run's outputs. Sync actions never yield."""
        queue: deque[Event] | None = None  # created when an action sends an event
        event: Event = input_event(value)
        outputs: list[Any] = []
        handled = 0
        calls = self._calls
        while True:
            handled += 1
            if handled > self._config.max_events_per_run:
                raise RunawayRunError(
                    f"run for key {ctx.key!r} exceeded max_events_per_run="
                    f"{self._config.max_events_per_run} (last event {event!r}); "
                    "an action probably re-sends the event it handles"
                )
            is_output, listeners = self._routes.get(type(event)) or self._route(type(event))
            if is_output:
                outputs.append(event.output)  # type: ignore[attr-defined]
            elif not listeners:
                raise UnhandledEventError(
                    f"no action listens to {type(event).__name__} (event {event!r})"
                )
            for spec in listeners:
                ctx.current_action = spec.name
                calls[spec.name] += 1
                try:
                    if spec.is_async:
                        yield from _drive(spec.fn(event, ctx), ctx, spec.name)
                    else:
                        spec.fn(event, ctx)
                except Exception as e:
                    self._metrics.inc(self._names[spec.name][1])
                    raise ActionFailedError(spec.name, event, e) from e
                if ctx.has_sent_events:
                    if queue is None:
                        queue = deque()
                    queue.extend(ctx.take_sent_events())
            if not queue:
                break
            event = queue.popleft()
        ctx.current_action = None
        self.last_events = handled
        return outputs


def _drive(coroutine: Coroutine[PendingCall, Any, Any], ctx: RunContext,
           action: str) -> Generator[PendingCall, PendingCall, None]:
    """Runs an async action's coroutine: each call it awaits goes up to the host, and the
    settled call goes back into the coroutine (PendingCall.__await__ unwraps it). Between
    steps other runs use the subtask, so the run's action name is set again each time."""
    settled: PendingCall | None = None
    while True:
        try:
            awaited = coroutine.send(settled)
        except StopIteration:
            return
        if not isinstance(awaited, PendingCall):
            coroutine.close()
            raise TypeError(
                f"action {action!r} awaited {awaited!r}: an async action may await "
                "ctx.durable_execute_async(...) and the package's *_async methods only "
                "(there is no asyncio loop on the task thread)")
        try:
            settled = yield awaited
        except GeneratorExit:
            coroutine.close()
            raise
        ctx.current_action = action
