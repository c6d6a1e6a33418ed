"""Strict reading of line-oriented user files: numbered lines, JSON records, typed fields.

Every problem surfaces as one :class:`~ragward.errors.InputError` naming the file (as the
caller gave it), the 1-based line and the field::

    queries.jsonl line 3: field 'now_tick': expected an integer, got string "5"

Policy, the same for every file read here: a ``.gz`` file is read through gzip; CRLF and
LF line ends are both fine; a UTF-8 byte-order mark is accepted; blank lines are allowed
only at the end of a file (editors leave them), a blank line between records is an error
because it usually means a record went missing. A JSON value of the wrong type is never
coerced: ``"2"`` is not an integer and neither is ``true``.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Collection, Generator, Iterator, Mapping, Sequence
from typing import IO, Any, cast

from ragward.errors import InputError
from ragward.parsing import Unparsable, parse_json

__all__ = ["INT64_MAX", "Record", "describe", "read_jsonl", "read_lines", "read_text"]

#: The largest integer a field may hold: ticks, versions and offsets are stored as 64-bit
#: signed integers, and a larger one would fail later, in an engine or in numpy.
INT64_MAX = 2**63 - 1


def read_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    """The non-blank lines of ``path`` with their 1-based numbers, line ends removed."""
    shown = str(path)
    blank: int | None = None
    try:
        with _open(path) as stream:
            for number, line in enumerate(stream, 1):
                if not line.strip():
                    blank = blank or number
                    continue
                if blank is not None:
                    problem = "blank line between records (only trailing blank lines are allowed)"
                    raise InputError.at(shown, blank, None, problem)
                yield number, line.rstrip("\r\n")
    except UnicodeDecodeError:  # its offset is into a block the reader decoded: find the line
        raise InputError.at(shown, _line_not_utf8(path), None, "not UTF-8 text") from None
    except (OSError, EOFError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise InputError.at(shown, None, None, f"cannot read the file: {reason}") from None


def read_text(path: str | os.PathLike[str]) -> str:
    """The whole text of ``path`` under the policy above (gzip, a byte-order mark, strict
    UTF-8), for readers that split lines themselves (TREC files, which ``ragward metrics``
    reads); an undecodable byte is reported with its line."""
    shown = str(path)
    try:
        with open(path, "rb") as stream:
            data = stream.read()
        if os.fspath(path).endswith(".gz"):
            data = gzip.decompress(data)
    except (OSError, EOFError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise InputError.at(shown, None, None, f"cannot read ({reason})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError.at(shown, line, None, "not UTF-8 text") from None


def read_jsonl(path: str | os.PathLike[str]) -> Generator[Record, None, None]:
    """Each line of a JSON-lines file as a :class:`Record` (it must hold a JSON object)."""
    shown = str(path)
    for number, line in read_lines(path):
        try:
            data = parse_json(line)
        except Unparsable as error:
            column = "" if error.column is None else f" (column {error.column})"
            raise InputError.at(shown, number, None, f"invalid JSON: {error}{column}") from None
        if not isinstance(data, dict):
            problem = f"expected a JSON object, got {describe(data)}"
            raise InputError.at(shown, number, None, problem)
        yield Record(shown, number, data)


def describe(value: object) -> str:
    """A JSON value's type and a short rendering of it, for messages."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    kind = {bool: "boolean", int: "integer", float: "number", str: "string"}.get(type(value))
    # Cut before rendering: a value may be megabytes long.
    shown = json.dumps(value[:41] if isinstance(value, str) else value, ensure_ascii=False)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return "null" if value is None else f"{kind or type(value).__name__} {shown}"


class Record:
    """One JSON object read from ``path`` at ``line``, with strict typed getters.

    A getter's ``default`` of ``None`` makes the field required. Nested objects are read
    through :meth:`nested`, so their errors name the full field path
    (``principal.tenant``, ``evidence[2].start``).
    """

    __slots__ = ("data", "line", "path", "prefix")

    def __init__(self, path: str, line: int, data: Mapping[str, Any], prefix: str = "") -> None:
        self.path = path
        self.line = line
        self.data = data
        self.prefix = prefix

    def error(self, field: str | None, problem: str) -> InputError:
        """An :class:`InputError` at this record's line about ``field`` (None: the record)."""
        return InputError.at(self.path, self.line, self._name(field), problem)

    def first(self, field: str, key: object, seen: dict[Any, int], what: str) -> None:
        """Note that ``key`` (the value of ``field``, a ``what``) is read at this line;
        refuse it if an earlier line of the file had it (``seen``: key to line)."""
        line = seen.setdefault(key, self.line)
        if line != self.line:
            raise self.error(field, f"duplicate {what} {key!r} (first at line {line})")

    def nested(self, field: str, value: object) -> Record:
        """The object ``value`` found at ``field`` of this record, as a record of its own."""
        if not isinstance(value, dict):
            raise self.error(field, f"expected an object, got {describe(value)}")
        return Record(self.path, self.line, value, f"{self._name(field)}.")

    def only(self, allowed: Collection[str]) -> None:
        """Reject fields outside ``allowed`` (typo protection)."""
        unknown = sorted(set(self.data) - set(allowed))
        if unknown:
            raise self.error(unknown[0], f"unknown field (allowed: {', '.join(allowed)})")

    def string(self, field: str, default: str | None = None, *, empty: bool = False) -> str:
        """A string field, non-blank unless ``empty``."""
        value = self._get(field, default)
        if not isinstance(value, str):
            raise self.error(field, f"expected a string, got {describe(value)}")
        if not empty and not value.strip():
            raise self.error(field, "must not be empty")
        return value

    def optional_string(self, field: str) -> str | None:
        """A non-empty string or null; absent means null."""
        value = self.data.get(field)
        return None if value is None else self.string(field)

    def integer(self, field: str, default: int | None = None, *, minimum: int = 0) -> int:
        """An integer field from ``minimum`` to :data:`INT64_MAX` (a boolean is not an
        integer)."""
        value = self._get(field, default)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(field, f"expected an integer, got {describe(value)}")
        if value < minimum:
            raise self.error(field, f"must be >= {minimum}, got {_digits(value)}")
        if value > INT64_MAX:
            raise self.error(field, f"must be <= 2**63 - 1, got {_digits(value)}")
        return value

    def optional_integer(self, field: str, *, minimum: int = 0) -> int | None:
        """An integer of at least ``minimum`` or null; absent means null."""
        return None if self.data.get(field) is None else self.integer(field, minimum=minimum)

    def choice(self, field: str, allowed: Sequence[str], default: str | None = None) -> str:
        """A string that must be one of ``allowed``."""
        value = self.string(field, default)
        if value not in allowed:
            raise self.error(field, f"unknown value {value!r} (allowed: {', '.join(allowed)})")
        return value

    def array(self, field: str, *, required: bool = False) -> list[Any]:
        """An array field; absent means empty unless ``required``."""
        value = self._get(field, None if required else [])
        if not isinstance(value, list):
            raise self.error(field, f"expected an array, got {describe(value)}")
        return value

    def strings(self, field: str) -> tuple[str, ...]:
        """An array of non-empty strings; absent means empty."""
        values = self.array(field)
        for index, value in enumerate(values):
            if not isinstance(value, str) or not value.strip():
                expected = "a non-empty string"
                raise self.error(f"{field}[{index}]", f"expected {expected}, got {describe(value)}")
        return tuple(values)

    def _get(self, field: str, default: object) -> object:
        value = self.data.get(field, default)
        if value is None:
            problem = "missing (required)" if field not in self.data else "must not be null"
            raise self.error(field, problem)
        return value

    def _name(self, field: str | None) -> str | None:
        return None if field is None else self.prefix + field


def _line_not_utf8(path: str | os.PathLike[str]) -> int | None:
    """The number of the first line of ``path`` that is not UTF-8 (read again, as bytes)."""
    try:
        with _open_bytes(path) as stream:
            for number, raw in enumerate(stream, 1):
                try:
                    raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError:
                    return number
    except (OSError, EOFError):
        return None
    return None


def _open_bytes(path: str | os.PathLike[str]) -> IO[bytes]:
    if os.fspath(path).endswith(".gz"):
        return cast(IO[bytes], gzip.open(path, "rb"))
    return open(path, "rb")


def _open(path: str | os.PathLike[str]) -> IO[str]:
    if os.fspath(path).endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8-sig")
    return open(path, encoding="utf-8-sig")


def _digits(value: int) -> str:
    """A large integer, shortened for a message."""
    shown = str(value)
    return shown if len(shown) <= 24 else f"{shown[:10]}... ({len(shown)} digits)"
