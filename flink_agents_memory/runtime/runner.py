"""The agent loop of one run, independent of Flink so it can be tested on its own."""

from __future__ import annotations

from collections import deque
from typing import Any

from ..agent import ActionSpec
from ..errors import ActionFailedError, RunawayRunError, UnhandledEventError
from ..events import Event, InputEvent, OutputEvent
from ..metrics import MetricsRecorder
from .config import AgentConfig
from .run_context import RunContext


class AgentRunner:
    """Runs every action listening to each queued event until the queue is empty."""

    def __init__(self, actions: list[ActionSpec], config: AgentConfig,
                 metrics: MetricsRecorder | None = None) -> None:
        self._actions = actions
        self._config = config
        self._routes: dict[type, list[ActionSpec]] = {}
        self._metrics = metrics or MetricsRecorder(enabled=False)
        self._names = {a.name: (f"agent.action.{a.name}.calls", f"agent.action.{a.name}.failures")
                       for a in actions}
        #: Events handled by the last run (for metrics).
        self.last_events = 0

    def _listeners(self, event_type: type) -> list[ActionSpec]:
        routes = self._routes.get(event_type)
        if routes is None:
            routes = [a for a in self._actions if issubclass(event_type, a.listens)]
            self._routes[event_type] = routes
        return routes

    def run(self, value: Any, ctx: RunContext) -> list[Any]:
        """Process one input element; returns the outputs of its OutputEvents, in order.

        Raises a RunError subclass when the run fails; the caller then discards its writes.
        """
        queue: deque[Event] = deque([InputEvent(input=value)])
        outputs: list[Any] = []
        handled = 0
        while queue:
            event = queue.popleft()
            handled += 1
            if handled > self._config.max_events_per_run:
                raise RunawayRunError(
                    f"run for key {ctx.key!r} exceeded max_events_per_run="
                    f"{self._config.max_events_per_run} (last event {event!r}); "
                    "an action probably re-sends the event it handles"
                )
            listeners = self._routes.get(type(event)) or self._listeners(type(event))
            if isinstance(event, OutputEvent):
                outputs.append(event.output)
            elif not listeners:
                raise UnhandledEventError(
                    f"no action listens to {type(event).__name__} (event {event!r})"
                )
            for spec in listeners:
                ctx.current_action = spec.name
                calls, failures = self._names[spec.name]
                self._metrics.inc(calls)
                try:
                    spec.fn(event, ctx)
                except Exception as e:
                    self._metrics.inc(failures)
                    raise ActionFailedError(spec.name, event, e) from e
                queue.extend(ctx.take_sent_events())
        ctx.current_action = None
        self.last_events = handled
        return outputs
