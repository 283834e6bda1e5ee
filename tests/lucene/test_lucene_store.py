"""The py4j test helper itself: stores made from any gateway thread work together."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from lucene_store import LuceneStore
from pyflink.java_gateway import get_gateway


def test_a_store_made_while_another_thread_calls_java_works_beside_an_older_one(
        tmp_path: Path) -> None:
    """A Python thread's call holds one py4j connection, so a store made meanwhile is made on
    a second connection's Java thread; both stores must still answer on either."""
    first = LuceneStore(tmp_path / "first")
    first.set_key("alice")
    busy = threading.Thread(target=lambda: get_gateway().jvm.Thread.sleep(1000))
    busy.start()
    time.sleep(0.2)
    second = LuceneStore(tmp_path / "second")
    busy.join()
    try:
        for store in (first, second, first, second):
            store.set_key("alice")
            assert store.store.count(0) == 0
    finally:
        first.close()
        second.close()
