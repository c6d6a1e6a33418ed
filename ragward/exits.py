"""Exit codes of every ``ragward`` command, and the one place that turns outcomes into them.

=====  =============================================================================
code   meaning
=====  =============================================================================
0      success: the report is written, the implementation conforms, no regression
1      a verdict: does not conform, a regression, a leak, a stored case still fails
2      bad input or usage: a bad option, path or file, an adapter that breaks the
       contract; one line on stderr naming what is wrong and where
3      an internal or environment failure (an unexpected exception): one line naming
       it; the traceback only with ``RAGWARD_DEBUG=1``
130    interrupted (Ctrl-C): at once, one line, nothing half-written; a second Ctrl-C
       ends it at once; a process started with SIGINT ignored (``nohup``, a script's
       background job) keeps it ignored (:mod:`ragward.interrupts`)
=====  =============================================================================

A call into an engine that never returns never changes it either: the kit gives it a
verdict and leaves it running on its thread, and the process then ends through
:func:`end_keeping_the_code`, not through an interpreter exit that the running call can
turn into an abort (DuckDB's C++: 134).

The reader of the output never changes the code: ``ragward gate ... | head -n 1`` exits
1 on a regression like ``ragward gate ...`` does, whatever it could not print (the
standard streams are :func:`ragward.streams.guarded_streams` while a command runs). A
:class:`BrokenPipeError` that still comes out of a command is another process's pipe or
socket failing: an internal or environment failure, never a success.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import traceback
from collections.abc import Callable
from typing import NoReturn

from ragward.clipped import MESSAGE_LIMIT, first_line
from ragward.errors import RagwardError
from ragward.interrupts import deferred, interruptible, owe_line
from ragward.streams import guarded_streams

__all__ = [
    "BAD_INPUT",
    "DEBUG_ENV",
    "INTERNAL",
    "INTERRUPTED",
    "SUCCESS",
    "VERDICT",
    "end_keeping_the_code",
    "run_guarded",
]

SUCCESS = 0
VERDICT = 1
BAD_INPUT = 2
INTERNAL = 3
INTERRUPTED = 130

#: Set to 1 to see the traceback of an internal error.
DEBUG_ENV = "RAGWARD_DEBUG"


def end_keeping_the_code(code: int) -> NoReturn:
    """End the process with ``code`` at once: the exit handlers run (the servers ragward
    started are stopped, its finalizers called), the standard streams are flushed, and the
    interpreter's own teardown, which a call still running on another thread can turn
    into an abort, is skipped."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe keeps the code too
            stream.flush()
    os._exit(code)


def run_guarded(command: str, work: Callable[[], int]) -> int:
    """Run ``work`` (one command) and return its exit code; whatever it raises becomes
    one line on stderr, prefixed ``ragward <command>:``, and the code of the table above.
    A closed stdout or stderr drops the rest of the output, not the code."""
    with guarded_streams(), interruptible():
        return _run(command, work)


def _run(command: str, work: Callable[[], int]) -> int:
    prefix = f"ragward {command}:"
    # Owed from the start: a second Ctrl-C during the first one's cleanup, before the
    # handler below prints it, ends the process at once and writes it then.
    owe_line(f"{prefix} interrupted")
    try:
        return work()
    except RagwardError as error:
        _say(f"{prefix} error: {_first_line(error)}")
        return BAD_INPUT
    except KeyboardInterrupt:
        with deferred():  # written whole, then owed no more, before a second one acts
            _say(f"{prefix} interrupted")
            owe_line(None)
        return INTERRUPTED
    except Exception as error:
        if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
            traceback.print_exc(file=sys.stderr)
        _say(
            f"{prefix} internal error: {type(error).__name__}: {_first_line(error)} "
            f"(please report it; {DEBUG_ENV}=1 shows the traceback)"
        )
        return INTERNAL
    finally:
        owe_line(None)


def _first_line(error: BaseException) -> str:
    # Bounded whatever the message quotes: what an implementation said is cut where it is
    # quoted, and a user's long value here (MESSAGE_LIMIT).
    return first_line(error, MESSAGE_LIMIT) or type(error).__name__


def _say(line: str) -> None:
    """One line on stderr, starting a fresh line when a progress bar is on the terminal."""
    start = "\r\033[K" if sys.stderr.isatty() else ""
    print(start + line, file=sys.stderr, flush=True)
