"""A scripted OpenAI-compatible server on loopback: real HTTP for the real client code."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    #: Hundreds of runs in flight connect at once; the default backlog of 5 would refuse some.
    request_queue_size = 1024


class ScriptedLLMServer:
    """Answers ``/chat/completions`` with the next scripted reply (a str, or an int HTTP status)
    and ``/embeddings`` with ``embed(texts)``; records every request body.

    With ``respond``, each chat completion is answered ``respond(body)`` instead: a reply that
    depends on the request only, so a request replayed after a restore gets the same answer.
    """

    def __init__(self, embed: Any = None,
                 respond: Callable[[dict[str, Any]], str | int] | None = None) -> None:
        self.replies: deque[str | int] = deque()
        self._respond = respond
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        #: Seconds each chat completion waits before answering (to make clients time out).
        self.delay_s = 0.0
        self._embed = embed
        #: Chat completions being answered now, and the most there ever were at once.
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                server.headers.append(dict(self.headers))
                if self.path.endswith("/embeddings"):
                    data = [{"index": i, "embedding": list(map(float, v))}
                            for i, v in enumerate(server._embed(body["input"]))]
                    return self._send(200, {"data": data})
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    time.sleep(server.delay_s)
                    if server._respond is not None:
                        reply = server._respond(body)
                    else:
                        reply = server.replies.popleft() if server.replies else '{"facts": []}'
                finally:
                    with server._lock:
                        server.in_flight -= 1
                if isinstance(reply, int):
                    return self._send(reply, {"error": "scripted failure"})
                return self._send(200, {"choices": [{"message": {"content": reply}}]})

            def _send(self, status: int, payload: Any) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                # the client may have timed out (delay_s) and gone away
                with contextlib.suppress(BrokenPipeError):
                    self.wfile.write(raw)

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
