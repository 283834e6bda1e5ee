"""Events that flow between the actions of one run (names from Apache Flink Agents)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Event(BaseModel):
    """Base class of every event; subclass it to define your own events."""

    model_config = ConfigDict(arbitrary_types_allowed=True)


class InputEvent(Event):
    """Starts a run: wraps the input element of the keyed stream."""

    input: Any


class OutputEvent(Event):
    """Its ``output`` is emitted downstream when the run succeeds."""

    output: Any
