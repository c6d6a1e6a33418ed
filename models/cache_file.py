"""The embedding cache's SQLite file: opened only if it is ragward's, faults in one line.

A valid cache can hold an hour of model encoding, so no fault may cost it:

* a file ragward made (its ``vectors`` table, layout :data:`VERSION`) is used as it is;
  a new or empty file is made a cache in one transaction;
* a cache of a newer layout (a newer ragward's) is refused with what to do, untouched;
* another application's database that happens to bear the name is refused, untouched
  (nothing is written to it before it is known to be ragward's: not its journal mode,
  not a table, not its ``user_version``);
* a file that is not a database, or a damaged one, is moved aside whole (its bytes kept
  beside it) and a new cache started, whether it is found so at open or in the middle of a
  run (:func:`start_again`: the run goes on, computing what the new cache lacks);
* a cache another process holds locked is waited for (SQLite's busy handler, at most
  ``busy_seconds``), then refused in one line naming the file and, where the system says,
  the process holding it; never taken for a damaged file;
* a full disk, a read-only file or an I/O error is one line naming the cache (exit 2).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from ragward.errors import RagwardError

__all__ = [
    "BUSY_SECONDS",
    "FILE",
    "VERSION",
    "CacheFault",
    "Damaged",
    "faults",
    "file_id",
    "open_cache",
    "start_again",
]

FILE = "embeddings.sqlite3"
VERSION = 1  # PRAGMA user_version of the layout below
#: How long a lock another process holds is waited for before the cache is refused.
BUSY_SECONDS = 60.0

# A rowid table on 16 KiB pages: a 1.5 KiB vector row packs ten to a page (a WITHOUT
# ROWID table spills every such row to an overflow page, tripling the file).
_SCHEMA = """
CREATE TABLE vectors (
    id INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    key BLOB NOT NULL,
    dims INTEGER NOT NULL,
    digest BLOB NOT NULL,
    data BLOB NOT NULL,
    UNIQUE (model, key)
)
"""
_TABLES = frozenset({"vectors"})

# SQLite's primary result codes (https://www.sqlite.org/rescode.html).
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = (
    3, 5, 6, 8, 10, 11, 13, 14, 26,
)  # fmt: skip
_DAMAGED = (_CORRUPT, _NOTADB)


class CacheFault(RagwardError):
    """The cache cannot be used as it is; the message names the file and what to do."""


class Damaged(Exception):
    """The file is not a database, or a damaged one: to be set aside, never a verdict."""


def open_cache(path: Path, busy_seconds: float = BUSY_SECONDS) -> sqlite3.Connection:
    """A connection to the cache at ``path`` (made there if new), or a :class:`CacheFault`."""
    try:
        return _open(path, busy_seconds)
    except Damaged:
        _set_aside(path, "was not a readable cache database")
    try:
        return _open(path, busy_seconds)
    except Damaged:  # damaged again at once: another process is writing garbage there
        raise CacheFault(
            f"embedding cache {path} is not a database; name another directory with --cache"
        ) from None


def start_again(
    path: Path, connection: sqlite3.Connection, opened: tuple[int, int] | None, error: Damaged
) -> None:
    """A cache found damaged in the middle of a run (a page read back as garbage): close
    the connection and set the file aside as one found damaged at open, unless it is no
    longer the file ``opened`` (:func:`file_id`; another process set it aside already and
    may have started a new one). The caller then opens the cache again."""
    with contextlib.suppress(sqlite3.Error):
        connection.close()
    if opened is not None and file_id(path) == opened:
        _set_aside(path, f"was found damaged during the run (SQLite: {error})")


def file_id(path: Path) -> tuple[int, int] | None:
    """The file at ``path`` (device and inode), to tell it from one put there since."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _open(path: Path, busy_seconds: float) -> sqlite3.Connection:
    with faults(path, busy_seconds):
        connection = sqlite3.connect(path, timeout=busy_seconds, isolation_level=None)
    try:
        with faults(path, busy_seconds):
            version, tables = _layout(connection)
            if not tables and version == 0:
                _make(connection)
                version, tables = _layout(connection)  # another process may have made it
            _check(path, version, tables)
            connection.execute("PRAGMA synchronous=NORMAL")  # this connection's, not the file's
    except BaseException:
        connection.close()
        raise
    return connection


def _layout(connection: sqlite3.Connection) -> tuple[int, set[str]]:
    """The file's ``user_version`` and its tables, read without writing anything."""
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return int(version), {str(name) for (name,) in rows}


def _make(connection: sqlite3.Connection) -> None:
    """Make an empty file a cache; a process doing the same at once makes it once."""
    connection.execute("PRAGMA page_size=16384")  # takes effect in a new file only
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("BEGIN IMMEDIATE")
    try:
        if connection.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
            connection.execute(_SCHEMA)
            connection.execute(f"PRAGMA user_version={VERSION}")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def _check(path: Path, version: int, tables: set[str]) -> None:
    """Refuse, untouched, a file that is not a cache of this layout."""
    if tables == _TABLES and version in (0, VERSION):  # 0: made by ragward before it said
        return
    if "vectors" in tables and version > VERSION:
        raise CacheFault(
            f"embedding cache {path} has layout {version}, newer than this ragward reads "
            f"({VERSION}): upgrade ragward to use it, or name another directory with --cache"
        )
    shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
    raise CacheFault(
        f"{path} is not a ragward embedding cache (user_version {version}, tables {shown}); "
        "ragward leaves it alone: name another directory with --cache"
    )


def _set_aside(path: Path, what: str) -> None:
    """Move a file that is not a database out of the way, whole (another run may have
    done it already), so the cache starts again empty instead of failing every run; one
    line says ``what`` was wrong with it."""
    aside = path.with_name(f"{FILE}.corrupt-{os.getpid()}-{time.time_ns()}")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    print(
        f"ragward: embedding cache {path} {what}; moved it to {aside.name} and started a new one",
        file=sys.stderr,
    )


@contextlib.contextmanager
def faults(path: Path, busy_seconds: float) -> Iterator[None]:
    """SQLite's errors in the block as one-line :class:`CacheFault`\\ s, but a damaged
    file as :class:`Damaged`, to be set aside (at open by :func:`open_cache`, in the
    middle of a run by the cache, with :func:`start_again`)."""
    try:
        yield
    except (sqlite3.ProgrammingError, sqlite3.IntegrityError, sqlite3.InterfaceError):
        raise  # ragward's own mistake: an internal error
    except sqlite3.DatabaseError as error:
        code = getattr(error, "sqlite_errorcode", -1) & 0xFF
        damaged = code in _DAMAGED or (code == 0xFF and "not a database" in str(error))
        if damaged:
            raise Damaged(str(error)) from None
        raise CacheFault(_problem(path, code, error, busy_seconds)) from None


def _problem(path: Path, code: int, error: BaseException, busy_seconds: float) -> str:
    said = str(error)
    if code in (_BUSY, _LOCKED):
        holders = _holders(path)
        held = f" by {holders}" if holders else " by another process"
        return (
            f"embedding cache {path} is locked{held} for more than {busy_seconds:g} s "
            "(SQLite: database is locked); let it finish, or name another directory with --cache"
        )
    what, remedy = {
        _FULL: ("the disk is full", "free space or name another directory with --cache"),
        _READONLY: ("cannot write it", "name a writable directory with --cache"),
        _PERM: ("cannot write it", "name a writable directory with --cache"),
        _CANTOPEN: ("cannot open it", "name a writable directory with --cache"),
        _IOERR: ("input/output error", "name another directory with --cache"),
    }.get(code, ("cannot use it", "name another directory with --cache"))
    return f"embedding cache {path}: {what} (SQLite: {said}); {remedy}"


def _holders(path: Path) -> str:
    """The other processes with ``path`` (or its WAL files) open, as ``pid N (command)``;
    empty where the system does not tell (no /proc, or another user's processes)."""
    names = {os.path.realpath(f"{path}{suffix}") for suffix in ("", "-wal", "-shm")}
    found: list[str] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            with contextlib.suppress(OSError):
                links = {os.readlink(f.path) for f in os.scandir(f"{entry.path}/fd")}
                if links & names:
                    found.append(f"pid {entry.name} ({_command(entry.path)})")
    return ", ".join(found[:3])


def _command(proc: str) -> str:
    try:
        with open(f"{proc}/cmdline", "rb") as handle:
            words = handle.read(200).split(b"\0")
    except OSError:
        return "?"
    line = " ".join(" ".join(w.decode("utf-8", "replace").split()) for w in words if w)
    return line if len(line) <= 60 else line[:57] + "..."
