"""An OpenAI-compatible chat endpoint on loopback that answers after a fixed latency.

Served by asyncio in a thread of its own, so hundreds of waiting requests cost no thread each
and the server is never the bottleneck of an LLM-bound benchmark. It counts requests and the
most it ever held at once (what the agents really had in flight), and reports them.

    with LoopbackLLM(latency_s=0.25) as llm:
        ... llm.url ...; llm.max_in_flight
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any


class LoopbackLLM:
    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._port = 0
        self._thread = threading.Thread(target=self._serve, name="loopback-llm", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    def reset(self) -> None:
        self.requests = self.max_in_flight = 0

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def start() -> None:
            server = await asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=4096)
            self._port = server.sockets[0].getsockname()[1]
            self._ready.set()

        self._loop.run_until_complete(start())
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                keep_alive = b"keep-alive" in head.lower()
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                body = json.loads(await reader.readexactly(length)) if length else {}
                self.requests += 1
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
                try:
                    await asyncio.sleep(self.latency_s)
                finally:
                    self.in_flight -= 1
                writer.write(_response(body, keep_alive))
                await writer.drain()
                if not keep_alive:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def __enter__(self) -> LoopbackLLM:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


def _response(body: dict[str, Any], keep_alive: bool) -> bytes:
    messages = body.get("messages") or [{"content": ""}]
    payload = json.dumps({"choices": [{"message": {"content": "re:" + str(
        messages[-1].get("content", ""))[:64]}}], "usage": {"total_tokens": 8}}).encode()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(payload)).encode()
            + (b"\r\nConnection: keep-alive" if keep_alive else b"\r\nConnection: close")
            + b"\r\n\r\n" + payload)
