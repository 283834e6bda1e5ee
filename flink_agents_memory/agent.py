"""Agents and actions: an agent is a set of ``@action`` functions that react to events."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .errors import AgentDefinitionError
from .events import Event
from .memory.list_retention import check_rule
from .memory.long_term_config import LongTermMemoryConfig
from .memory.retention import Retention

if TYPE_CHECKING:
    from .knowledge.base import KnowledgeBase

_LISTENS = "_flink_agents_memory_listens"
_HISTORY_NAME = re.compile(r"(?!__)[A-Za-z_][A-Za-z0-9_.-]*")


def action(*event_types: type[Event]) -> Callable[[Any], Any]:
    """Mark a function of an Agent as an action listening to ``event_types``.

    Works above or below ``@staticmethod``; the function is called as ``fn(event, ctx)``
    (or ``self.fn(event, ctx)`` for an instance method). An ``async def`` action may
    ``await ctx.durable_execute_async(...)``: the run then waits off the task thread while the
    subtask runs other keys' inputs (docs/async_actions.md).
    """
    if not event_types:
        raise AgentDefinitionError("@action needs at least one event type")
    for t in event_types:
        if not (isinstance(t, type) and issubclass(t, Event)):
            raise AgentDefinitionError(f"@action expects Event subclasses, got {t!r}")

    def mark(fn: Any) -> Any:
        target = fn.__func__ if isinstance(fn, staticmethod) else fn
        if not callable(target):
            raise AgentDefinitionError(f"@action must decorate a function, got {fn!r}")
        setattr(target, _LISTENS, tuple(event_types))
        return fn

    return mark


@dataclass(frozen=True)
class ActionSpec:
    """One action of an agent, resolved to a callable ``fn(event, ctx)``."""

    name: str
    listens: tuple[type[Event], ...]
    fn: Callable[[Event, Any], Any]
    #: ``async def``: calling ``fn`` returns a coroutine the run drives (runtime/runner.py).
    is_async: bool = False


class Agent:
    """Base class of agents. Subclass it and add ``@action`` functions.

    Class attributes declare what must exist before the job runs (Flink wants states declared
    up front); they are read by the runtime when the job is built.
    """

    #: Pydantic model classes stored in memory that must resolve on restore even when their
    #: module is not importable on the TaskManager (e.g. defined in the job script).
    memory_types: ClassVar[tuple[type, ...]] = ()

    #: Histories of this agent by name, each a keyed ring buffer with its retention:
    #: ``histories = {"chat": Retention(max_items=50, max_tokens=4000)}``.
    histories: ClassVar[dict[str, Retention]] = {}

    #: Retention of list fields of short-term memory, by path (``*`` matches one segment):
    #: ``short_term_retention = {"conv.messages": Retention(max_items=20)}``. A list set at a
    #: matching path keeps its newest items that fit; older ones are dropped, reduced or moved
    #: to long-term memory (``Retention.on_overflow``).
    short_term_retention: ClassVar[dict[str, Retention]] = {}

    #: Long-term memory settings (embedder, LLM for add_messages, TTL, limits).
    long_term_memory: ClassVar[LongTermMemoryConfig] = LongTermMemoryConfig()

    #: Shared knowledge bases searched by ``ctx.search_knowledge``:
    #: ``knowledge_bases = [KnowledgeBase("http://127.0.0.1:8000")]``. They are pickled with
    #: the agent and connect on first use in the TaskManager. A class attribute of a class
    #: defined in an importable module is re-read on import there, so when the service URL is
    #: only known at run time, assign the list on the instance (``agent.knowledge_bases = [...]``
    #: in ``__init__``): instance attributes travel with the pickled agent.
    knowledge_bases: ClassVar[list[KnowledgeBase]] = []

    def validate(self) -> list[ActionSpec]:
        """Check actions and declarations; returns the actions. Called at job build time."""
        for name, retention in self.histories.items():
            if not isinstance(name, str) or not _HISTORY_NAME.fullmatch(name):
                raise AgentDefinitionError(
                    f"history name {name!r} of {type(self).__name__} must be a non-empty "
                    "identifier not starting with '__' (reserved for built-in histories)"
                )
            if not isinstance(retention, Retention):
                raise AgentDefinitionError(
                    f"history {name!r} of {type(self).__name__} must map to a Retention, "
                    f"got {retention!r}"
                )
        if not isinstance(self.short_term_retention, dict):
            raise AgentDefinitionError(
                f"{type(self).__name__}.short_term_retention must be a dict of path to Retention"
            )
        for pattern, retention in self.short_term_retention.items():
            problem = check_rule(pattern, retention)
            if problem is not None:
                raise AgentDefinitionError(
                    f"short_term_retention of {type(self).__name__}: {problem}")
        if not isinstance(self.long_term_memory, LongTermMemoryConfig):
            raise AgentDefinitionError(
                f"{type(self).__name__}.long_term_memory must be a LongTermMemoryConfig"
            )
        self.long_term_memory.check_embedder()
        return self.get_actions()

    def has_async_actions(self) -> bool:
        """Whether any action is ``async def``: its job then runs several runs in flight."""
        return any(spec.is_async for spec in self.get_actions())

    def get_actions(self) -> list[ActionSpec]:
        """The agent's actions, in definition order; raises AgentDefinitionError if malformed."""
        specs: list[ActionSpec] = []
        seen: set[str] = set()
        for cls in type(self).__mro__:
            for name, raw in vars(cls).items():
                target = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
                listens = getattr(target, _LISTENS, None)
                if listens is None or name in seen:
                    continue
                seen.add(name)
                fn = getattr(self, name)
                _check_signature(type(self).__name__, name, fn)
                specs.append(ActionSpec(name=name, listens=listens, fn=fn,
                                        is_async=inspect.iscoroutinefunction(fn)))
        if not specs:
            raise AgentDefinitionError(f"agent {type(self).__name__} has no @action functions")
        return specs


def _check_signature(agent: str, name: str, fn: Callable[..., Any]) -> None:
    try:
        inspect.signature(fn).bind(None, None)
    except TypeError as e:
        raise AgentDefinitionError(
            f"action {agent}.{name} must accept (event, ctx): {e}"
        ) from e
