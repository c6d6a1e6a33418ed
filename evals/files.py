"""Writing report files so that nothing is ever half-written."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8, ``\\n`` newlines), atomically.

    The bytes go to a new file beside ``path``, are flushed to disk, and only then replace
    ``path`` (``os.replace``), so a reader sees the old file or the new one, never half.
    The file is created like any other (permissions follow the umask).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for attempt in itertools.count():
        temporary = target.with_name(f".{target.name}.{os.getpid()}.{attempt}.tmp")
        try:
            handle = os.open(temporary, flags, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(text.replace("\r\n", "\n").encode("utf-8"))
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
