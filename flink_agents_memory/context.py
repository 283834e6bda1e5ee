"""RunnerContext: what an action sees of the runtime, for the run's key.

Names follow the short-term memory design (``get_short_term_memory``) and the memory system
design (``memory``, ``search_knowledge``). ``history(name)`` of those designs is kept as an
alias of :meth:`RunnerContext.named_history`, whose name says that it is a declared history
and not the long-term memory's ``get_history`` or ``history(id)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .events import Event
from .memory.memory_object import MemoryObject

if TYPE_CHECKING:
    from .knowledge.items import KnowledgeItem
    from .memory.history import History
    from .memory.items import MemoryAPI


T = TypeVar("T")


class RunnerContext(ABC):
    """Handed to every action of a run; scoped to the run's key."""

    @property
    @abstractmethod
    def key(self) -> Any:
        """The key of the current run (the keyed stream's key)."""

    @abstractmethod
    def send_event(self, event: Event) -> None:
        """Queue an event for the actions that listen to its type (OutputEvent goes downstream)."""

    @abstractmethod
    def get_short_term_memory(self) -> MemoryObject:
        """The root object of this key's short-term memory."""

    @property
    @abstractmethod
    def memory(self) -> MemoryAPI:
        """This key's long-term memory: add, update, delete, get, search, recent memories and
        the audit trail."""

    @abstractmethod
    def named_history(self, name: str) -> History:
        """The history ``name`` declared in the agent's ``histories`` (a keyed ring buffer)."""

    def history(self, name: str) -> History:
        """Alias of :meth:`named_history` (the name the designs use)."""
        return self.named_history(name)

    @abstractmethod
    def now_ms(self) -> int:
        """The run's clock in epoch milliseconds: processing time, or the element's event time
        under ``AgentConfig(retention_time="event")``."""

    @abstractmethod
    def search_knowledge(self, query: str, source: str | None = None,
                         limit: int = 10) -> list[KnowledgeItem]:
        """Search the agent's shared knowledge bases (``Agent.knowledge_bases``); results of
        every base (or of those having ``source``) merged by score, best ``limit`` first."""

    @abstractmethod
    def durable_execute(self, fn: Callable[..., T], *args: Any,
                        reconciler: Callable[[], T] | None = None, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` with its outcome recorded, so a replay after a failure gets
        the recorded result instead of calling again (docs/async_actions.md)."""

    @abstractmethod
    async def durable_execute_async(self, fn: Callable[..., Any], *args: Any,
                                    reconciler: Callable[[], Any] | None = None,
                                    **kwargs: Any) -> Any:
        """:meth:`durable_execute` off the task thread, in an ``async def`` action: the run
        waits while the subtask runs other keys' inputs."""

    @abstractmethod
    async def search_knowledge_async(self, query: str, source: str | None = None,
                                     limit: int = 10) -> list[KnowledgeItem]:
        """:meth:`search_knowledge` off the task thread, in an ``async def`` action."""
