"""The real Java LongTermMemoryStore (Lucene) driven from Python over py4j, outside Flink."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

from pyflink.java_gateway import get_gateway
from pyflink.util.java_utils import to_jarray

from flink_agents_memory import InputEvent, OutputEvent, action
from flink_agents_memory.agent import Agent
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.models import HashingEmbedder
from flink_agents_memory.runtime.config import AgentConfig
from flink_agents_memory.runtime.jars import operator_jar
from flink_agents_memory.runtime.local import LocalAgentRunner


def key_group(key: str, max_parallelism: int = 128) -> int:
    return zlib.crc32(key.encode()) % max_parallelism


_operator_classes: Any = None


def _operator_class_loader() -> Any:
    """One class loader holding the operator jar for the whole test process.

    py4j serves each connection on its own Java thread, and a second connection opens whenever
    two Python threads call Java at once (a finalizer in an HTTP server's thread, say).
    PyFlink's ``add_jars_to_context_class_loader`` changes only the serving thread's class
    loader, so a store made on another thread got its own copy of the operator's classes, and
    py4j (which caches methods by class name) then failed its calls with "object is not an
    instance of declaring class"."""
    global _operator_classes
    if _operator_classes is None:
        jvm = get_gateway().jvm
        urls = to_jarray(jvm.java.net.URL, [jvm.java.net.URL(operator_jar().as_uri())])
        system = jvm.ClassLoader.getSystemClassLoader()
        _operator_classes = jvm.java.net.URLClassLoader(urls, system)
    return _operator_classes


def _new(class_name: str, *args: Any) -> Any:
    """An instance of the operator jar's ``class_name`` by its constructor of ``len(args)``."""
    jvm = get_gateway().jvm
    name = f"io.flinkagentsmemory.index.{class_name}"
    cls = jvm.Class.forName(name, True, _operator_class_loader())
    [constructor] = [c for c in cls.getConstructors() if len(c.getParameterTypes()) == len(args)]
    return constructor.newInstance(to_jarray(jvm.Object, list(args)))


class LuceneStore:
    """A subtask's indexes in ``directory`` and a store whose current key is set by hand."""

    def __init__(self, directory: Path) -> None:
        path = get_gateway().jvm.java.io.File(str(directory)).toPath()
        self.indexes = _new("SubtaskMemoryIndexes", path)
        self.current = _new("SettableCurrentKey")
        self.store = _new("LongTermMemoryStore", self.indexes, self.current)

    def set_key(self, key: str) -> None:
        self.current.set(key, key_group(key))

    def close(self) -> None:
        self.indexes.close()


class LuceneRunner(LocalAgentRunner):
    """LocalAgentRunner whose long-term memory is the real Lucene store."""

    def __init__(self, agent: Agent, lucene: LuceneStore, config: AgentConfig | None = None,
                 clock: Any = None) -> None:
        self.lucene = lucene
        super().__init__(agent, config, store=lucene.store, clock=clock)

    def _use_key(self, key: Any) -> None:
        self.lucene.set_key(str(key))
        super()._use_key(key)


class CallAgent(Agent):
    """Runs the callable given as input against ctx, and outputs its result."""

    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(64))

    @action(InputEvent)
    @staticmethod
    def call(event, ctx):
        ctx.send_event(OutputEvent(output=event.input(ctx)))
