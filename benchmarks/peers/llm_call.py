"""The one LLM call both frameworks' async agents make: a chat completion over plain urllib
(standard library only, so it runs in either framework's venv unchanged)."""

from __future__ import annotations

import json
import urllib.request


def ask(url: str, text: str) -> str:
    body = json.dumps({"model": "loopback", "messages": [{"role": "user", "content": text}]})
    request = urllib.request.Request(f"{url}/chat/completions", data=body.encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        return str(json.loads(response.read())["choices"][0]["message"]["content"])
