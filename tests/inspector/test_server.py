"""The inspector's server without a savepoint: loopback by default, a token beyond it, the
error page, read-only methods. Real HTTP on loopback."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from flink_agents_memory.inspector import InspectorServer
from flink_agents_memory.inspector.server import TOKEN_HEADER, error_page, is_loopback


def fetch(url: str, method: str = "GET", headers: dict | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.fixture
def failed():
    server = InspectorServer(None, "no savepoint at /x: the directory does not exist").start()
    yield server
    server.stop()


def test_binds_loopback_by_default_without_token(failed):
    assert failed._httpd.server_address[0] == "127.0.0.1"
    assert failed.token is None


def test_error_page_names_the_problem_not_a_stack_trace(failed):
    status, body = fetch(failed.url)
    assert status == 500
    assert "no savepoint at /x: the directory does not exist" in body
    assert "Traceback" not in body
    status, body = fetch(failed.url + "api/keys")
    assert status == 500 and "directory does not exist" in json.loads(body)["error"]


def test_error_page_escapes_html():
    assert "<script>" not in error_page("bad <script>alert(1)</script>")


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_read_only(failed, method):
    status, body = fetch(failed.url + "api/keys", method=method)
    assert status == 405 and "read-only" in body


def test_unknown_page_is_404(failed):
    assert fetch(failed.url + "nothing")[0] == 404


def test_a_token_is_required_beyond_loopback():
    # bound to every interface, but the test only connects over loopback
    server = InspectorServer(None, "x", host="0.0.0.0", port=0).start()
    try:
        assert server.token, "a token is generated when none is given"
        port = server._httpd.server_address[1]
        base = f"http://127.0.0.1:{port}/"
        assert fetch(base)[0] == 401
        assert fetch(base + "?token=wrong")[0] == 401
        assert fetch(base + f"?token={server.token}")[0] == 500  # the (error) page itself
        assert fetch(base + "api/keys", headers={TOKEN_HEADER: server.token})[0] == 500
    finally:
        server.stop()


def test_a_given_token_is_used_on_loopback_too():
    server = InspectorServer(None, "x", token="s3cret").start()
    try:
        assert server.url.endswith("?token=s3cret")
        assert fetch(server.url.split("?")[0])[0] == 401
    finally:
        server.stop()


def test_is_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4")


def test_needs_a_view_or_an_error():
    with pytest.raises(ValueError, match="needs a view or an error"):
        InspectorServer(None, None)
