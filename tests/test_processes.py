"""The reference is in memory and per process: what ``os.fork`` does to a built one.

A child forked from a process holding a reference retriever gets a copy: it can
retrieve and ingest on it, and neither process sees the other's writes. A fork taken
while another thread of the parent is inside a call waits for that call to end (the
retriever registers ``os.register_at_fork`` hooks), so the child never inherits a lock
held by a thread it does not have, nor an index written halfway.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable

import pytest

from ragward.reference import AuthorizedRetriever, ReferenceAsker, ReferenceDoc

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

ASKER = ReferenceAsker("u1", "acme")
CHILD_SECONDS = 10.0


def _retriever() -> AuthorizedRetriever:
    retriever = AuthorizedRetriever()
    retriever.ingest(ReferenceDoc("d1", "acme", "Hold", "Payment PMT-7 is held for screening."))
    return retriever


def _ids(retriever: AuthorizedRetriever, query: str) -> list[str]:
    return [s.chunk.chunk_id for s in retriever.retrieve(query, ASKER).chunks]


def _in_child(check: Callable[[], bool]) -> int | None:
    """Run ``check`` in a forked child; its exit code (0: it held), None if it hung."""
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        try:
            code = 0 if check() else 1
        except BaseException:
            code = 2
        os._exit(code)
    deadline = time.monotonic() + CHILD_SECONDS
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)  # our own child, by its id
    os.waitpid(pid, 0)
    return None


def test_a_forked_child_retrieves_and_writes_its_own_copy() -> None:
    retriever = _retriever()
    assert _ids(retriever, "PMT-7") == ["d1::1"]

    def child() -> bool:
        if _ids(retriever, "PMT-7") != ["d1::1"]:
            return False
        retriever.ingest(ReferenceDoc("d2", "acme", "Note", "Payment PMT-8 was released."))
        return _ids(retriever, "PMT-8") == ["d2::1"]

    assert _in_child(child) == 0
    assert _ids(retriever, "PMT-8") == []  # the child's write stayed in the child


def test_a_fork_during_another_threads_call_waits_for_it_and_the_child_can_retrieve() -> None:
    retriever = _retriever()
    inside = threading.Event()
    finished: list[float] = []

    def busy() -> None:  # stands for a long ingest on another thread
        with retriever._lock:
            inside.set()
            time.sleep(0.3)
            finished.append(time.monotonic())

    thread = threading.Thread(target=busy, daemon=True)
    thread.start()
    inside.wait()

    def child() -> bool:
        # a bounded wait for the lock the retriever's calls take: a hang otherwise
        if not retriever._lock.acquire(timeout=0.5):
            print("child: the retriever's lock is held by no thread", file=sys.stderr)
            return False
        retriever._lock.release()
        return _ids(retriever, "PMT-7") == ["d1::1"]

    assert _in_child(child) == 0
    thread.join()
    assert finished, "the other thread's call ended"
    assert _ids(retriever, "PMT-7") == ["d1::1"]  # the parent's lock was released too


def test_a_child_forked_during_an_ingest_sees_it_whole_or_not_at_all() -> None:
    retriever = _retriever()
    text = " ".join(f"word{i} PMT-9" for i in range(3000))  # a long ingest

    def writer() -> None:
        retriever.ingest(ReferenceDoc("big", "acme", "Big", text))

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()

    def child() -> bool:
        # Its first and its last chunk: both in the index, or neither.
        first, last = _ids(retriever, "word0"), _ids(retriever, "word2999")
        return bool(first) == bool(last)

    assert _in_child(child) == 0
    thread.join()
