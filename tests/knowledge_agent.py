"""An agent for the knowledge tests (importable in the TaskManager: tests/ is on sys.path)."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
import urllib.parse

from flink_agents_memory import Agent, InputEvent, OutputEvent, action


class KnowledgeProbe(Agent):
    """Input ``key|query`` (or ``key|source=NAME|query``): outputs the knowledge hits as JSON
    with the bases' warning counters. ``key|STOP`` stops the server (pid ``stop_pid``) first,
    and waits until its port refuses connections."""

    def __init__(self, knowledge_bases, stop_pid: int | None = None) -> None:
        self.knowledge_bases = list(knowledge_bases)
        self.stop_pid = stop_pid

    @action(InputEvent)
    def probe(self, event: InputEvent, ctx) -> None:
        key, query = event.input.split("|", 1)
        if query == "STOP":
            self._stop_server()
            query = "checkpoint state"
        source = None
        if query.startswith("source="):
            source, query = query[len("source="):].split("|", 1)
        hits = ctx.search_knowledge(query, source=source, limit=3)
        ctx.send_event(OutputEvent(output=json.dumps({
            "key": key, "query": query, "hits": [[h.source, h.metadata.get("doc"), h.score]
                                                 for h in hits],
            "warnings": sum(kb.warning_count for kb in self.knowledge_bases)})))

    def _stop_server(self) -> None:
        assert self.stop_pid is not None
        os.kill(self.stop_pid, signal.SIGTERM)
        url = urllib.parse.urlsplit(self.knowledge_bases[0].service_url)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection((url.hostname, url.port), timeout=1).close()
            except OSError:
                return
            time.sleep(0.1)
        raise RuntimeError("the knowledge server did not stop")
