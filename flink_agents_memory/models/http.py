"""A small JSON-over-HTTP client with timeouts and bounded retries (standard library only)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any


class HTTPError(Exception):
    """A request failed after its retries; the message names the URL, never the api key."""


def post_json(url: str, payload: dict[str, Any], api_key: str | None, timeout_s: float,
              retries: int, backoff_s: float = 0.2) -> Any:
    """POST ``payload`` and decode the JSON answer; retries connection errors and 5xx/429."""
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    last: Exception | None = None
    for attempt in range(retries + 1):
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            last = e
            if e.code < 500 and e.code != 429:
                detail = e.read()[:300].decode(errors="replace")
                raise HTTPError(f"POST {url} answered {e.code}: {detail}") from e
        except (urllib.error.URLError, TimeoutError, ConnectionError, json.JSONDecodeError) as e:
            last = e
        if attempt < retries:
            time.sleep(backoff_s * 2**attempt)
    raise HTTPError(f"POST {url} failed after {retries + 1} attempts: {last}") from last
