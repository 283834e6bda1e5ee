"""Keep model libraries off the console inside a TaskManager.

In thread mode Python's stdout and stderr are PEMJA's redirected streams, and a library writing
to them (a tqdm progress bar, a warning) can block the task thread for good. Model code runs
inside :func:`quiet_libraries`: progress bars are switched off through the libraries' own
settings, and anything still printed or warned goes to logging instead.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import warnings
from collections.abc import Iterator

log = logging.getLogger("flink_agents_memory.models.output")

# Settings the libraries read when they start a progress bar or pick a log level.
QUIET_ENV = {
    "TQDM_DISABLE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TOKENIZERS_PARALLELISM": "false",
}


class _LogWriter(io.TextIOBase):
    """A text stream that logs each complete line at DEBUG (progress bars redraw with \\r)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._buffer = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._buffer += text
        *lines, self._buffer = self._buffer.replace("\r", "\n").split("\n")
        for line in lines:
            if line.strip():
                log.debug("%s: %s", self._name, line)
        return len(text)


@contextlib.contextmanager
def quiet_libraries() -> Iterator[None]:
    """Run a block with library output in logging, never on the console."""
    for name, value in QUIET_ENV.items():
        os.environ.setdefault(name, value)

    def to_log(message: Warning | str, category: type[Warning], filename: str, lineno: int,
               file: object = None, line: str | None = None) -> None:
        log.info("%s:%s: %s: %s", filename, lineno, category.__name__, message)

    with warnings.catch_warnings(), contextlib.redirect_stdout(_LogWriter("stdout")), \
            contextlib.redirect_stderr(_LogWriter("stderr")):
        warnings.showwarning = to_log
        yield
