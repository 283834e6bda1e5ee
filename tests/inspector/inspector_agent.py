"""The agents whose savepoints the inspector tests read: every kind of memory, with known values.

Input ``"user|text"``: the user's profile (a nested object and a pydantic model) goes into
short-term memory, the text into the ``chat`` history and into long-term memory, and the
message count into ``stats``. Input ``"tick|i"`` (key ``tick``) writes nothing: it only keeps
the job running until the test takes its savepoint. :class:`ReviewerAgent` is a second agent
for jobs that apply two.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from flink_agents_memory import Agent, InputEvent, OutputEvent, action
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.memory.retention import Retention
from flink_agents_memory.models import HashingEmbedder

EMBEDDER_DIM = 64

SCRIPT = [
    "alice|I love green tea in the morning",
    "bob|My favourite sport is rock climbing",
    "alice|I am allergic to peanuts",
    "alice|My sister lives in Lisbon",
    "bob|I play the piano on Sundays",
]


class Preferences(BaseModel):
    """A model stored in short-term memory (the page shows its type)."""

    language: str
    units: str = "metric"


class InspectorAgent(Agent):
    histories = {"chat": Retention(max_items=3, ttl_ms=86_400_000)}
    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(EMBEDDER_DIM))

    def __init__(self, out_file: str | None = None) -> None:
        self.out_file = out_file

    @action(InputEvent)
    def remember(self, event, ctx):
        user, text = event.input.split("|", 1)
        if user == "tick":
            return
        stm = ctx.get_short_term_memory()
        stm.set("profile.name", user.title())
        stm.set("profile.address.city", "Lisbon" if user == "alice" else "Porto")
        stm.set("profile.preferences", Preferences(language="en"))
        count = (stm.get("stats.messages") or 0) + 1
        stm.set("stats.messages", count)
        ctx.history("chat").append(text)
        memory_id = ctx.memory.add(text, metadata={"n": count})
        if user == "alice" and count == 3:
            ctx.memory.update(memory_id, text + " and my brother in Porto")
        if self.out_file:
            with open(self.out_file, "a") as f:
                f.write(json.dumps({"user": user, "count": count}) + "\n")
        ctx.send_event(OutputEvent(output=f"{user}:{count}"))


class ReviewerAgent(Agent):
    """A second agent of the same job (its own operator, so its own memory): the two-agent
    tests tell its memory from InspectorAgent's. Per message it keeps the last one reviewed in
    short-term memory and adds ``"review of <user>: <text>"`` to long-term memory."""

    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(EMBEDDER_DIM))

    def __init__(self, out_file: str | None = None) -> None:
        self.out_file = out_file

    @action(InputEvent)
    def review(self, event, ctx):
        user, text = event.input.split("|", 1)
        if user == "tick":
            return
        ctx.get_short_term_memory().set("review.last", f"reviewed: {text}")
        ctx.memory.add(f"review of {user}: {text}")
        if self.out_file:
            with open(self.out_file, "a") as f:
                f.write(json.dumps({"user": user, "reviewed": text}) + "\n")
        ctx.send_event(OutputEvent(output=f"review:{user}"))
