"""The real Java LongTermMemoryStore (Lucene) driven from Python over py4j, outside Flink."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

from pyflink.java_gateway import get_gateway
from pyflink.util.java_utils import add_jars_to_context_class_loader

from flink_agents_memory import InputEvent, OutputEvent, action
from flink_agents_memory.agent import Agent
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.models import HashingEmbedder
from flink_agents_memory.runtime.config import AgentConfig
from flink_agents_memory.runtime.jars import operator_jar
from flink_agents_memory.runtime.local import LocalAgentRunner


def key_group(key: str, max_parallelism: int = 128) -> int:
    return zlib.crc32(key.encode()) % max_parallelism


class LuceneStore:
    """A subtask's indexes in ``directory`` and a store whose current key is set by hand."""

    def __init__(self, directory: Path) -> None:
        add_jars_to_context_class_loader([operator_jar().as_uri()])
        index = get_gateway().jvm.io.flinkagentsmemory.index
        self.indexes = index.SubtaskMemoryIndexes(
            get_gateway().jvm.java.io.File(str(directory)).toPath())
        self.current = index.SettableCurrentKey()
        self.store = index.LongTermMemoryStore(self.indexes, self.current)

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
