"""The inspector's HTTP server: the page and a JSON API, GET only (read-only by construction).

It listens on loopback by default. Bound to any other address it requires a token (given, or
generated and printed), passed as ``?token=`` or the ``X-Inspector-Token`` header, so memory
is never served to the network unauthenticated.
"""

from __future__ import annotations

import hmac
import html
import ipaddress
import json
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlparse

from .savepoint_view import InspectorError, SavepointView

TOKEN_HEADER = "X-Inspector-Token"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def error_page(message: str) -> str:
    """The page shown when the savepoint cannot be opened: the problem, not a stack trace."""
    return ("<!doctype html><html><head><meta charset='utf-8'><title>Memory inspector: error"
            "</title></head><body style='font-family:sans-serif;margin:2em'>"
            "<h1>The savepoint cannot be inspected</h1>"
            f"<p id='error' style='color:#a00;font-size:1.1em'>{html.escape(message)}</p>"
            "</body></html>")


class InspectorServer:
    """Serves one :class:`SavepointView` (or, if opening failed, the error that says why)."""

    def __init__(self, view: SavepointView | None, error: str | None = None,
                 host: str = "127.0.0.1", port: int = 0, token: str | None = None) -> None:
        if view is None and error is None:
            raise ValueError("InspectorServer needs a view or an error to show")
        if not is_loopback(host) and not token:
            token = secrets.token_urlsafe(24)
        self.view = view
        self.error = error
        self.token = token
        self._page = resources.files(__package__).joinpath("page.html").read_text("utf-8")
        self._httpd = ThreadingHTTPServer((host, port), self._handler())
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        url = f"http://{host}:{port}/"
        return url + (f"?token={self.token}" if self.token else "")

    def start(self) -> InspectorServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # quiet: the CLI prints the URL, not every request

            def do_GET(self) -> None:  # noqa: N802
                url = urlparse(self.path)
                query = {k: v[-1] for k, v in parse_qs(url.query).items()}
                if server.token and not self._authorised(query):
                    self._send(HTTPStatus.UNAUTHORIZED, "text/plain",
                               "a token is required: open the URL the inspector printed")
                    return
                if url.path == "/":
                    if server.error is not None:
                        self._send(HTTPStatus.INTERNAL_SERVER_ERROR, "text/html",
                                   error_page(server.error))
                    else:
                        self._send(HTTPStatus.OK, "text/html", server._page)
                    return
                if not url.path.startswith("/api/"):
                    self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {url.path}"})
                    return
                if server.error is not None or server.view is None:
                    self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": server.error})
                    return
                try:
                    self._json(HTTPStatus.OK, route(server.view, url.path[5:], query))
                except LookupError as e:
                    self._json(HTTPStatus.NOT_FOUND, {"error": str(e)})
                except (InspectorError, ValueError) as e:
                    self._json(HTTPStatus.BAD_REQUEST, {"error": str(e)})

            def _refuse(self) -> None:
                self._json(HTTPStatus.METHOD_NOT_ALLOWED,
                           {"error": "the memory inspector is read-only"})

            do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # noqa: N815

            def _authorised(self, query: dict[str, str]) -> bool:
                given = query.get("token") or self.headers.get(TOKEN_HEADER) or ""
                return hmac.compare_digest(given.encode(), (server.token or "").encode())

            def _json(self, status: HTTPStatus, body: Any) -> None:
                self._send(status, "application/json", json.dumps(body))

            def _send(self, status: HTTPStatus, kind: str, body: str) -> None:
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _int(query: dict[str, str], name: str, default: int) -> int:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise InspectorError(f"{name} must be an integer, got {raw!r}") from None


def _required(query: dict[str, str], name: str) -> str:
    value = query.get(name)
    if value is None:
        raise InspectorError(f"missing query parameter {name!r}")
    return value


def route(view: SavepointView, endpoint: str, query: dict[str, str]) -> Any:
    """One API call: summary, keys, key, memories, search, audit."""
    if endpoint == "summary":
        return view.subtasks()
    if endpoint == "keys":
        return view.keys(query.get("q", ""), _int(query, "offset", 0), _int(query, "limit", 50))
    if endpoint == "key":
        return view.key(_required(query, "key"))
    if endpoint == "memories":
        return view.memories(_required(query, "key"), _int(query, "offset", 0),
                             _int(query, "limit", 50))
    if endpoint == "search":
        return view.search(_required(query, "key"), query.get("q", ""),
                           query.get("mode", "hybrid"), _int(query, "limit", 10))
    if endpoint == "audit":
        return view.audit(_required(query, "key"), _required(query, "id"))
    raise LookupError(f"no API endpoint {endpoint!r}")
