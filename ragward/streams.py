"""Standard streams whose reader may go away: a verdict never depends on who reads it.

``ragward gate ... | head -n 1`` closes the pipe after one line. Python ignores
``SIGPIPE``, so the next write to the closed pipe raises :class:`BrokenPipeError` in the
middle of the command, long before its exit code is known, and Python's own flush of
``sys.stdout`` at exit raises it once more ("Exception ignored", exit 120). Mapping the
exception to an exit code cannot work: the verdict it would need was never computed.

Inside :func:`guarded_streams`, ``sys.stdout`` and ``sys.stderr`` drop what they are
given once their reader has gone. The first :class:`BrokenPipeError` points the stream's
file descriptor at :data:`os.devnull` (``os.dup2``, the remedy Python's :mod:`signal`
documentation gives), so bytes still buffered, and the flush at exit, go nowhere instead
of failing; the command runs to its end and returns its own exit code. Only the standard
streams are guarded: a :class:`BrokenPipeError` of anything else (a peer's socket or
pipe) is still an error.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO, cast

__all__ = ["GuardedStream", "guarded_streams"]


class GuardedStream:
    """A text stream passing everything to ``inner`` until its reader goes away; then
    nothing, without an error. Every other attribute is ``inner``'s."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner
        self.reader_gone = False

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                self.inner.write(text)
            except BrokenPipeError:
                self._reader_left()
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.reader_gone:
            return
        try:
            self.inner.flush()
        except BrokenPipeError:
            self._reader_left()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _reader_left(self) -> None:
        self.reader_gone = True
        try:
            descriptor = self.inner.fileno()
        except (OSError, ValueError):  # not a file (io.UnsupportedOperation is both)
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, descriptor)
        finally:
            os.close(devnull)
        # What the inner stream still buffers goes to devnull now, not at exit.
        with contextlib.suppress(OSError, ValueError):
            self.inner.flush()


@contextlib.contextmanager
def guarded_streams() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` as :class:`GuardedStream` for the block, flushed
    at its end (where a small output meets its closed pipe) and then put back.

    Nested blocks guard once; a missing stream (``python ... >&-`` makes it None) stays so.
    """
    saved = (sys.stdout, sys.stderr)
    guards = [_guard(stream) for stream in saved]
    sys.stdout, sys.stderr = guards
    try:
        yield
    finally:
        for guard in guards:
            if guard is not None:
                guard.flush()
        sys.stdout, sys.stderr = saved


def _guard(stream: TextIO | None) -> TextIO | None:
    if stream is None or isinstance(stream, GuardedStream):
        return stream
    return cast(TextIO, GuardedStream(stream))
