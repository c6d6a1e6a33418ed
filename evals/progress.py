"""A minimal progress bar for long eval work, on stderr and with no dependency.

    with progress(len(docs), "index c96o16") as bar:
        for doc in docs:
            system.ingest(doc)
            bar.advance()

By default the bar is drawn on an interactive terminal outside CI; stdout is kept for
reports and tables. When drawn, the line is redrawn in place with ``\\r`` at most ten
times a second and shows the label, the count, the percentage, the elapsed time and an
estimate of the time left; leaving the block draws the final state and ends the line,
also when the block raised.

Anywhere else (a CI log, a file, a pipe) a carriage-return bar is noise, but silence for
minutes is worse: a log cannot tell a long run from a hung one. There the same facts are
written as plain lines, one every :data:`LOG_INTERVAL` seconds while the work lasts and
one when it is done (none when it stops on an error: the command's error line says why).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from ragward.errors import InvalidArgument

__all__ = ["LOG_INTERVAL", "Progress", "progress"]

_INTERVAL = 0.1  # seconds between redraws: smooth enough, and cheap over slow terminals
#: Seconds between two lines in a log: often enough to see a run move, rare enough to read.
LOG_INTERVAL = 10.0
_BAR = 20  # characters in the bar itself


class Progress:
    """Counts finished items and redraws the bar; made by :func:`progress`."""

    def __init__(
        self,
        total: int,
        label: str,
        stream: TextIO,
        mode: str,
        clock: Callable[[], float],
    ) -> None:
        self.total, self.label, self.count = total, label, 0
        self._stream, self._mode, self._clock = stream, mode, clock
        self._started = self._drawn = clock()
        self._width = 0  # of the last line drawn, to blank what a shorter line leaves
        self._columns = _columns(stream) if mode == "bar" else None

    def advance(self, n: int = 1) -> None:
        """Record ``n`` more finished items; redraw (or log) if the last is old enough."""
        if n < 0:
            raise InvalidArgument(f"advance({n}): progress only moves forward; use n >= 0")
        self.count += n
        if self._mode == "bar" and self._clock() - self._drawn >= _INTERVAL:
            self._draw(self._line("running"))
        elif self._mode == "log" and self._clock() - self._drawn >= LOG_INTERVAL:
            self._log(self._line("running"))

    def _start(self) -> None:
        if self._mode == "bar":
            self._draw(self._line("running"))

    def _finish(self, failed: bool) -> None:
        if self._mode == "bar":
            self._draw(self._line("failed" if failed else "done"))
            self._stream.write("\n")
            self._stream.flush()
        elif self._mode == "log" and not failed:  # a failure is the command's one error line
            self._log(self._line("done"))

    def _line(self, state: str) -> str:
        elapsed = self._clock() - self._started
        share = self.count / self.total if self.total else 1.0
        filled = min(_BAR, int(share * _BAR))
        bar = f" [{'#' * filled}{'.' * (_BAR - filled)}]" if self._mode == "bar" else ":"
        head = f"{self.label}{bar} {self.count}/{self.total} {int(share * 100):3d}%"
        if state == "done":
            return f"{head} done in {elapsed:.1f} s"
        if state == "failed":
            return f"{head} stopped after {elapsed:.1f} s"
        left = "--:--" if not self.count else _clock_text(max(0.0, elapsed / share - elapsed))
        return f"{head} {_clock_text(elapsed)} elapsed, ETA {left}"

    def _draw(self, line: str) -> None:
        if self._columns is not None:
            line = line[: self._columns - 1]  # a wrapped line cannot be redrawn in place
        self._stream.write("\r" + line.ljust(self._width))
        self._stream.flush()
        self._width = len(line)
        self._drawn = self._clock()

    def _log(self, line: str) -> None:
        self._stream.write(line + "\n")
        self._stream.flush()
        self._drawn = self._clock()


@contextmanager
def progress(
    total: int,
    label: str,
    *,
    stream: TextIO | None = None,
    enabled: bool | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Progress]:
    """A progress bar for ``total`` items, drawn on ``stream`` (default: ``sys.stderr``).

    ``enabled=None`` draws a bar if ``stream`` is a terminal and the environment variable
    ``CI`` is unset or empty, and writes log lines otherwise; ``True`` always draws a bar,
    ``False`` writes nothing. ``stream`` is looked up when called, so a replaced
    ``sys.stderr`` is honoured; stdout is refused. ``clock`` is injectable for tests.
    """
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise InvalidArgument(f"total must be a whole number >= 0, got {total!r}")
    out = sys.stderr if stream is None else stream
    if out is sys.stdout or out is sys.__stdout__:
        raise InvalidArgument("progress must not go to stdout, which carries reports; use stderr")
    if enabled is None:
        mode = "bar" if _isatty(out) and not os.environ.get("CI") else "log"
    else:
        mode = "bar" if enabled else "off"
    bar = Progress(total, label, out, mode, clock)
    bar._start()
    failed = True
    try:
        yield bar
        failed = False
    finally:
        bar._finish(failed)


def _isatty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and not getattr(stream, "closed", False) and isatty())


def _columns(stream: TextIO) -> int | None:
    """The terminal's width if ``stream`` is one, so the line never wraps."""
    if not _isatty(stream):
        return None
    try:
        return max(20, os.get_terminal_size(stream.fileno()).columns)
    except (OSError, ValueError):  # no real descriptor behind it (a test double)
        return None


def _clock_text(seconds: float) -> str:
    whole = int(seconds + 0.5)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
