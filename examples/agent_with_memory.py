"""The memory system design's AgentWithMemory, end to end: memory (recent memories and
semantic search of this user's past interactions) plus shared knowledge (a Chroma server),
then a response, then the interaction stored as a new memory. The action is ``async``: the
knowledge search and the response (an LLM call) run off the task thread, so while one user's
run waits the subtask serves the others (docs/async_actions.md).

Run with ``make demo-memory`` (starts a Chroma server on a free loopback port, ingests
``examples/data/``, runs this job on a MiniCluster, stops the server), or by hand::

    CHROMA_BIN=.venv-chroma/bin/chroma flink-agents-memory knowledge serve -- sh -c '
        flink-agents-memory knowledge ingest --url $KNOWLEDGE_URL --source flink-docs examples/data
        python examples/agent_with_memory.py --url $KNOWLEDGE_URL'

Responses come from an OpenAI-compatible LLM when ``OPENAI_BASE_URL`` and ``OPENAI_MODEL`` are
set (``OPENAI_API_KEY`` if it needs one; they are read where the job runs, so the key is not
pickled with the agent). Otherwise :func:`template_response` answers: it quotes the best
knowledge chunk and recalls the most relevant earlier interaction of the same user.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment

from flink_agents_memory import (
    Agent,
    AgentsExecutionEnvironment,
    InputEvent,
    KnowledgeBase,
    KnowledgeItem,
    LongTermMemoryConfig,
    MemoryItem,
    OpenAICompatibleLLM,
    OutputEvent,
    RunnerContext,
    action,
)

MESSAGES = [
    "alice|How does Flink restore state after a failure?",
    "bob|Backpressure is slowing down upstream tasks: which operator is busy?",
    "alice|Can I change the parallelism of my job?",
    "bob|Checkpoints keep timing out since the backpressure started",
    "alice|What happens to late events in event time windows?",
    "alice|Remind me: when a task fails, how is the state restored?",
]


def template_response(text: str, memories: list[MemoryItem],
                      knowledge: list[KnowledgeItem]) -> str:
    """The responder used without an LLM: the first sentence of the best knowledge chunk (with
    its source), and a reminder of the most relevant earlier interaction, if any."""
    parts = []
    if knowledge:
        best = knowledge[0]
        body = re.sub(r"^#+\s*[^\n]*\n", "", best.content).strip()   # drop a markdown heading
        sentence = re.split(r"(?<=[.!?])\s", " ".join(body.split()), maxsplit=1)[0]
        parts.append(f"From {best.metadata.get('file', best.source)}: {sentence}")
    else:
        parts.append("I found nothing about that in the knowledge bases.")
    if memories:
        earlier = memories[0].memory.split(", Response:", 1)[0].removeprefix("Event: ")
        parts.append(f"(You asked before: {earlier!r})")
    return " ".join(parts)


def llm_from_env() -> OpenAICompatibleLLM | None:
    base_url, model = os.environ.get("OPENAI_BASE_URL"), os.environ.get("OPENAI_MODEL")
    if not (base_url and model):
        return None
    return OpenAICompatibleLLM(base_url, model, api_key=os.environ.get("OPENAI_API_KEY"))


class AgentWithMemory(Agent):
    """Flink agent with memory and shared knowledge (the design's AgentWithMemory)."""

    long_term_memory = LongTermMemoryConfig()  # MiniLM (make install); hashing with LIGHT=1

    def __init__(self, agent_id: str = "assistant",
                 knowledge_bases: list[KnowledgeBase] | None = None) -> None:
        self.agent_id = agent_id
        # An instance attribute, so the bases (and their URL) travel with the pickled agent.
        self.knowledge_bases = list(knowledge_bases or [])
        self._llm: Any = False   # resolved on first use, where the job runs

    def generate_response(self, text: str, history: list[MemoryItem],
                          memories: list[MemoryItem], knowledge: list[KnowledgeItem]) -> str:
        if self._llm is False:
            self._llm = llm_from_env()
        if self._llm is None:
            return template_response(text, memories, knowledge)
        context = "\n".join(f"- [{k.source}] {' '.join(k.content.split())}" for k in knowledge)
        past = "\n".join(f"- {m.memory}" for m in [*history, *memories][:8])
        return self._llm.complete([
            {"role": "system", "content": "You answer questions about Apache Flink briefly, "
                                          "using the knowledge and the user's past interactions."},
            {"role": "user", "content": f"Knowledge:\n{context or '(none)'}\n\nPast "
                                        f"interactions:\n{past or '(none)'}\n\nQuestion: {text}"},
        ])

    @action(InputEvent)
    async def process_event(self, event: InputEvent, ctx: RunnerContext) -> None:
        user, text = event.input.split("|", 1)
        recent_history = ctx.memory.recent_memories(5)
        relevant_memories = ctx.memory.search(text, limit=10)
        knowledge_context = await ctx.search_knowledge_async(text, limit=5)
        # Durable: a run replayed after a failure gets this response back instead of asking
        # the LLM again.
        response = await ctx.durable_execute_async(
            self.generate_response, text, recent_history, relevant_memories, knowledge_context)
        ctx.memory.add(MemoryItem(
            memory=f"Event: {text}, Response: {response}",
            metadata={"timestamp": ctx.now_ms(), "agent_id": self.agent_id, "user": user}))
        lines = [f"[{user}] {text}", f"  response: {response}",
                 f"  recent history: {len(recent_history)} item(s)"]
        lines += [f"  memory  {m.score or 0:.3f}  {m.memory[:90]}" for m in relevant_memories[:3]]
        lines += [f"  knowledge {k.score:.3f}  {k.source}/{k.metadata.get('file', '?')}: "
                  f"{' '.join(k.content.split())[:70]}" for k in knowledge_context[:3]]
        ctx.send_event(OutputEvent(output="\n".join(lines)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("KNOWLEDGE_URL"),
                        help="Chroma server (default $KNOWLEDGE_URL); none: no knowledge")
    parser.add_argument("--source", default=None, help="only this knowledge source")
    args = parser.parse_args(argv)
    bases = [KnowledgeBase(args.url, sources=[args.source] if args.source else None,
                           on_error="empty")] if args.url else []
    if not bases:
        print("no --url / $KNOWLEDGE_URL: running without knowledge", file=sys.stderr)

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)   # one subtask: each user's replies print in input order
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    messages = env.from_collection(MESSAGES, type_info=Types.STRING())
    out = (agents.from_datastream(messages, key_selector=lambda m: m.split("|", 1)[0])
           .apply(AgentWithMemory(knowledge_bases=bases)).to_datastream(Types.STRING()))
    with out.execute_and_collect("flink-agents-memory example: AgentWithMemory") as results:
        for reply in results:
            print(reply, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
