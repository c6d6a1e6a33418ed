"""Output paths of every command: checked before any work, written whole or not at all.

Every command that writes (``eval``, ``tune``, ``gate``, ``conform``, ``engines``,
``bench``) goes through this module, so that the same bad path gets the same one-line
error from each of them, and gets it *before* minutes of work rather than after:

* :func:`check_directory` and :func:`check_file` refuse a path that cannot be written —
  a file where a directory is meant, a directory where a file is meant, a path under a
  regular file, a directory nobody may write in (the check really creates and removes a
  directory there, so a read-only file system or ``/proc`` is caught even as root);
* :func:`replaced_directory` writes a report directory beside its target and swaps it in
  at the end, so an interrupted run leaves the previous report as it was and no file of
  an earlier, larger report lingers next to a new one;
* a directory is replaced only if ragward wrote it: empty, or holding its
  :class:`ReportKind`'s file (``results.json``, ``tune.json``), which parses as JSON and
  carries ragward's format tag of that kind (``"format": "ragward-eval/..."``, any
  version). Anything else, a folder of the user's files or another tool's
  ``results.json`` among them, is refused whole, before any work, and left untouched;
* :func:`write_atomic` writes one file through a temporary file beside it.

A report directory is created with its missing parents; a single file's directory must
already exist (a typo in it is more likely than a wish to create it).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ragward.errors import OutputError
from ragward.parsing import Unparsable, parse_json

__all__ = [
    "ReportKind",
    "check_directory",
    "check_file",
    "replaced_directory",
    "write_atomic",
]


@dataclass(frozen=True)
class ReportKind:
    """What makes a directory a report of one kind, which a new report of that kind may
    replace: ``marker`` (a file in it) holds a JSON object whose ``format`` is ``format``
    or another version of it (``ragward-eval/1``, ``ragward-eval/2``...)."""

    marker: str  # "results.json"
    format: str  # the format written today, "ragward-eval/1"
    name: str  # what the report is called in an error, "eval report"

    def __post_init__(self) -> None:
        if "/" not in self.format:
            raise ValueError(f"a format tag is NAME/VERSION, got {self.format!r}")

    @property
    def family(self) -> str:
        """The tag without its version: every format tag of this kind starts with it."""
        return self.format.rpartition("/")[0] + "/"


def check_directory(path: Path, option: str, marker: ReportKind | None = None) -> None:
    """Refuse, before any work, a report directory ``path`` (given as ``option``) that
    cannot be written or replaced.

    With ``marker``, the directory is replaced whole when written, so an existing,
    non-empty directory must be a report of that kind (:class:`ReportKind`): replacing
    anything else would delete what ragward did not write.
    """
    shown = f"{option} {path}"
    if path.exists():
        if not path.is_dir():
            raise OutputError(f"{shown}: is a file, not a directory")
        if marker is not None:
            _check_replaceable(path, marker, shown)
            _check_writable(path.parent, shown)  # the swap renames inside the parent
        _check_writable(path, shown)
        return
    _check_writable(_existing_ancestor(path, shown), shown)


def check_file(path: Path, option: str) -> None:
    """Refuse, before any work, an output file ``path`` (given as ``option``) that cannot
    be written: a directory, a path under a file, a missing or read-only directory."""
    shown = f"{option} {path}"
    if path.is_dir():
        raise OutputError(f"{shown}: is a directory, not a file")
    parent = path.parent
    if not parent.is_dir():
        _existing_ancestor(parent, shown)  # a path under a file says so
        raise OutputError(f"{shown}: directory {parent} does not exist")
    _check_writable(parent, shown)


@contextlib.contextmanager
def replaced_directory(target: Path, marker: ReportKind | None = None) -> Iterator[Path]:
    """A new, empty directory beside ``target`` to write a report into; when the block
    ends without an exception it replaces ``target`` whole, otherwise it is removed and
    ``target`` is left as it was.

    The old directory is renamed aside, the new one renamed in, then the old one removed:
    at every moment ``target`` is the whole old report or the whole new one. With
    ``marker``, an existing ``target`` that is not a report of that kind is refused
    (:class:`~ragward.errors.OutputError`) before anything is written.
    """
    if marker is not None and target.is_dir():
        _check_replaceable(target, marker, str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = _fresh_name(target, "new")
    os.mkdir(staging)
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _swap_in(staging, target)


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


def _swap_in(staging: Path, target: Path) -> None:
    """Put ``staging`` in the place of ``target`` (which may not exist yet)."""
    old: Path | None = None
    if target.exists():
        old = _fresh_name(target, "old")
        os.rename(target, old)
    try:
        os.rename(staging, target)
    except BaseException:
        if not os.path.lexists(staging):
            # Renamed, then interrupted: Python raises a Ctrl-C at the first instruction
            # after the call. The new report stands; the old one must not linger aside.
            _remove_old(old)
            raise
        if old is not None:
            os.rename(old, target)  # the old report goes back where it was
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _remove_old(old)


def _remove_old(old: Path | None) -> None:
    """Remove the old report that :func:`_swap_in` moved aside, if there was one."""
    if old is not None and old.is_symlink():
        old.unlink()  # a link to a report folder: the link is replaced, not its target
    elif old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _fresh_name(target: Path, role: str) -> Path:
    """A name beside ``target`` that nothing uses yet (hidden, with the process id)."""
    for attempt in itertools.count():
        candidate = target.with_name(f".{target.name}.{os.getpid()}.{attempt}.{role}")
        if not os.path.lexists(candidate):
            return candidate
    raise AssertionError("unreachable")  # pragma: no cover


def _check_replaceable(path: Path, report: ReportKind, shown: str) -> None:
    entries = sorted(entry.name for entry in path.iterdir())
    if not entries:
        return
    if report.marker not in entries:
        raise OutputError(
            f"{shown}: holds {entries[0]!r} but no {report.marker}, so it is not a report "
            "this command would replace; give a new or empty directory"
        )
    wrong = _not_a_report(path / report.marker, report)
    if wrong is not None:
        raise OutputError(
            f"{shown}: {report.marker} is not a ragward {report.name} ({wrong}), so the "
            "folder is not replaced; give a new or empty directory"
        )


def _not_a_report(marker: Path, report: ReportKind) -> str | None:
    """What keeps ``marker`` from being ``report``'s file, or None when it is one."""
    try:
        raw = marker.read_bytes()
    except OSError as error:
        return f"cannot be read: {error.strerror or type(error).__name__}"
    if not raw.strip():
        return "empty"
    try:
        data = parse_json(raw)
    except Unparsable:
        return "not JSON"
    tag = data.get("format") if isinstance(data, dict) else None
    if tag is None:
        return "no format tag"
    if not isinstance(tag, str) or not tag.startswith(report.family):
        return f"format {tag!r}, not {report.family}..."
    return None


def _check_writable(directory: Path, shown: str) -> None:
    """Create and remove a directory in ``directory``: permissions alone do not tell (a
    root user ignores them; a read-only mount or ``/proc`` refuses anyway)."""
    probe = _fresh_name(directory / "ragward-check", "probe")
    try:
        os.mkdir(probe)
        os.rmdir(probe)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise OutputError(f"{shown}: cannot write in {directory} ({reason})") from None


def _existing_ancestor(path: Path, shown: str) -> Path:
    """``path`` or its nearest existing ancestor, spelled as the user spelled ``path``
    (``.`` for a relative path with none); it must be a directory."""
    for ancestor in (path, *path.parents):
        if ancestor.exists():
            if not ancestor.is_dir():
                raise OutputError(f"{shown}: is under {ancestor}, which is a file")
            return ancestor
    return Path(path.anchor or ".")
