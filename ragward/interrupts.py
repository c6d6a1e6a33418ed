"""Ctrl-C wins: every wait of a command ends within a second, in one line, exit 130.

Two things kept an interrupt from winning, and one is deliberately left alone:

* A process started with SIGINT ignored (``nohup``, a background job of a shell script,
  a tool that runs commands that way) keeps it ignored, as POSIX has it: Ctrl-C at the
  terminal is not meant for it, and it finishes its work (stop it with SIGTERM).
  :func:`interruptible` and :func:`exit_at_once_on_interrupt` then change nothing; an
  earlier version took SIGINT back, killing background jobs a script meant to keep.
* Cleaning up after the interrupt waited politely: each peer was given a second to exit
  once its stdin closed. :func:`interrupted` tells the cleanup that the user is waiting;
  a peer is then killed at once (its process group, which holds anything it started).
* A second Ctrl-C while the interpreter shut down (weakref finalizers, threads joined at
  exit) printed a traceback. A second Ctrl-C now ends the process at once with exit 130,
  after killing every process ragward started (:func:`on_interrupt`): during the
  first one's cleanup, and, once a command has returned in the process's own entry
  point, during the interpreter's exit (:func:`exit_at_once_on_interrupt`). The line the
  first one owes (``ragward conform: interrupted``) is still written when the second
  lands before it was (:func:`owe_line`): a second Ctrl-C 50 ms after the first, on a
  loaded machine, came during the first one's cleanup and ended the process silently.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

__all__ = [
    "deferred",
    "exit_at_once_on_interrupt",
    "interrupted",
    "interruptible",
    "on_interrupt",
    "owe_line",
]

_STATE = {"interrupted": False, "process_command": False}
#: The line an interrupt owes the user and has not written yet (none: ``b""``).
_OWED = {"line": b""}
#: What to stop when the process must end at once: callables killing a child process.
_STOPPERS: dict[int, Callable[[], None]] = {}


def interrupted() -> bool:
    """Whether Ctrl-C has been pressed during this process's command: cleanups then stop
    what they wait for at once instead of waiting politely."""
    return _STATE["interrupted"]


def on_interrupt(key: int, stop: Callable[[], None] | None) -> None:
    """Register ``stop`` (None: forget ``key``'s) to be called, without waiting, if the
    process has to end at once on a second Ctrl-C (a child process' kill)."""
    if stop is None:
        _STOPPERS.pop(key, None)
    else:
        _STOPPERS[key] = stop


def owe_line(line: str | None) -> None:
    """Record ``line`` (None: nothing) as the one an interrupt owes stderr until it is
    written: ending the process at once writes it first."""
    _OWED["line"] = b"" if line is None else (line + "\n").encode("utf-8", "replace")


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    if _STATE["interrupted"]:  # a second Ctrl-C: the cleanup of the first is not awaited
        _exit_now(signum, frame)
    _STATE["interrupted"] = True
    raise KeyboardInterrupt


def _exit_now(signum: int, frame: FrameType | None) -> None:
    """Stop every child process registered, flush the standard streams, write the line
    owed (:func:`owe_line`), exit 130."""
    for stop in list(_STOPPERS.values()):
        with contextlib.suppress(Exception):
            stop()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if _OWED["line"]:
        with contextlib.suppress(OSError):
            os.write(2, _OWED["line"])
    os._exit(130)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """SIGINT raises :class:`KeyboardInterrupt` in the block and marks the process
    :func:`interrupted`; the previous handler is put back after. Where SIGINT is ignored
    (inherited so: see the module's docstring), or outside the main thread (only it can
    handle signals), nothing changes."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    ):
        yield
        return
    _STATE["interrupted"] = False
    before = signal.signal(signal.SIGINT, _raise_interrupt)
    try:
        yield
    finally:
        # The process's own command hands over to the interpreter's exit with no gap.
        signal.signal(signal.SIGINT, _exit_now if _STATE["process_command"] else before)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """SIGINT arriving in the block is acted on when the block ends, as it would have been
    at its start: for a few lines that must not be cut in two, such as a child process
    started and recorded for its cleanup (an interrupt between the two would orphan it).
    Outside the main thread, or with SIGINT not handled by Python, nothing changes."""
    handler = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(handler):
        yield
        return
    pending: list[tuple[int, FrameType | None]] = []
    signal.signal(signal.SIGINT, lambda signum, frame: pending.append((signum, frame)))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        for signum, frame in pending:  # a second one ends the process, as it would have
            handler(signum, frame)


def exit_at_once_on_interrupt() -> None:
    """Mark the command about to run as the process's own (``python -m ragward``, the
    ``ragward`` script): once it has returned, Ctrl-C stops every child process ragward
    started and ends the process with exit 130 without running anything more, for the
    interpreter's shutdown, which a second Ctrl-C must not turn into a traceback. A
    process started with SIGINT ignored keeps it ignored."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        _STATE["process_command"] = True
        signal.signal(signal.SIGINT, _exit_now)
