"""quiet_libraries() keeps model libraries off the console (the hang of issue 16).

Inside a TaskManager, sentence-transformers' tqdm bar wrote to PEMJA's redirected stderr and the
write blocked the task thread for good. Without torch (a light install), this drives the same
output paths (a real tqdm bar, warnings.warn, print) under a console whose writes block, as
PEMJA's did, until a timeout releases them: if the silencing breaks, the test fails instead of
hanging. The whole backend in a job is tests/flink/test_embedder_flink.py.
"""

from __future__ import annotations

import logging
import sys
import threading
import warnings

from tqdm import tqdm

from flink_agents_memory.models.quiet import QUIET_ENV, quiet_libraries


class BlockingConsole:
    """Stands in for PEMJA's stream: a write is recorded and blocks until the test releases it.

    It returns normally then, never raises: tqdm holds its global lock while it draws, and a
    raise there would leave that lock held by a dead thread, hanging every later bar.
    """

    def __init__(self, name: str, release: threading.Event) -> None:
        self.name = name
        self.release = release
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        self.release.wait()
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def chatty_library() -> None:
    """What a model library does while it encodes: a progress bar, a warning, prints."""
    # As sentence-transformers passes it (disable=not show_progress_bar), so TQDM_DISABLE in
    # the environment cannot switch this bar off: only the redirect keeps it off the console.
    for _ in tqdm(range(50), desc="Batches", disable=False, mininterval=0, file=None):
        pass
    warnings.warn("quiet-libraries-test warning", UserWarning, stacklevel=1)
    print("quiet-libraries-test stdout")
    print("quiet-libraries-test stderr", file=sys.stderr)


def to_console(message: Warning | str, category: type[Warning], filename: str, lineno: int,
               file: object = None, line: str | None = None) -> None:
    """Python's default warning display: to sys.stderr, as in a TaskManager."""
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def test_library_output_goes_to_logging_not_to_the_console(monkeypatch, caplog):
    for name in QUIET_ENV:  # restored after the test: quiet_libraries() sets them for good
        monkeypatch.delenv(name, raising=False)
    release = threading.Event()
    stdout, stderr = BlockingConsole("stdout", release), BlockingConsole("stderr", release)
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    caplog.set_level(logging.DEBUG, logger="flink_agents_memory.models.output")
    errors: list[BaseException] = []

    def body() -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("always")
                warnings.showwarning = to_console  # pytest records warnings; Flink does not
                with quiet_libraries():
                    chatty_library()
        except BaseException as e:  # reported below, on the test's thread
            errors.append(e)

    worker = threading.Thread(target=body, daemon=True)
    worker.start()
    worker.join(20)  # the block takes well under a second when nothing reaches the console
    release.set()
    finished = not worker.is_alive()
    worker.join(10)
    monkeypatch.undo()  # the real streams back before any assertion prints
    assert finished, "the block hung on a console write"
    assert stdout.writes == [] and stderr.writes == [], (stdout.writes, stderr.writes)
    assert not errors, errors
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "Batches: 100%" in logged  # the bar was drawn, into logging
    assert "UserWarning: quiet-libraries-test warning" in logged
    assert "stdout: quiet-libraries-test stdout" in logged
    assert "stderr: quiet-libraries-test stderr" in logged


def test_the_console_double_catches_a_broken_redirect(monkeypatch):
    """The check above is only as good as its console: without the redirect, tqdm reaches it."""
    release = threading.Event()
    release.set()
    stderr = BlockingConsole("stderr", release)
    monkeypatch.setattr(sys, "stderr", stderr)
    for _ in tqdm(range(3), disable=False, mininterval=0):
        pass
    monkeypatch.undo()
    assert stderr.writes
