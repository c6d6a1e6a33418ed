"""Typed reading of the data files: every error names the file, the entry and the field."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path


class DataError(ValueError):
    """A data file is missing, is not TOML, or has a field of the wrong shape."""


def read_toml(path: Path, name: str) -> Fields:
    """The top table of ``path``, its errors reported under ``name`` (a path relative to the
    data folder, so a message reads the same on every machine)."""
    try:
        with path.open("rb") as handle:
            return Fields(tomllib.load(handle), name)
    except tomllib.TOMLDecodeError as error:
        raise DataError(f"{name}: not valid TOML: {error}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(f"{name}: cannot read: {error.__class__.__name__}") from None


def read_text(path: Path, name: str) -> str:
    """The text of ``path`` (UTF-8), its errors reported under ``name``."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(f"{name}: cannot read: {error.__class__.__name__}") from None


def fill(template: str, values: Mapping[str, object], where: str) -> str:
    """``template`` with its ``{placeholders}`` filled; a missing one is a :class:`DataError`."""
    try:
        return template.format(**values)
    except KeyError as error:
        raise DataError(f"{where}: no value for the placeholder {{{error.args[0]}}}") from None
    except (IndexError, ValueError) as error:
        raise DataError(f"{where}: malformed template: {error}") from None


class Fields:
    """One table of a data file, with the place it came from (``where``) for messages."""

    def __init__(self, table: Mapping[str, object], where: str) -> None:
        self._table = table
        self.where = where

    def __contains__(self, name: str) -> bool:
        return name in self._table

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def fail(self, name: str, problem: str) -> DataError:
        """The error for field ``name``, to raise."""
        return DataError(f"{self.where}: field {name!r} {problem}")

    def only(self, *names: str) -> None:
        """Refuse a field not in ``names`` (a misspelt optional field would be ignored)."""
        unknown = sorted(set(self._table) - set(names))
        if unknown:
            raise self.fail(unknown[0], f"is unknown here; expected one of {', '.join(names)}")

    def _get(self, name: str, kind: type, shape: str) -> object:
        if name not in self._table:
            raise self.fail(name, "is missing")
        value = self._table[name]
        if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
            raise self.fail(name, f"must be {shape}")
        return value

    def text(self, name: str) -> str:
        return str(self._get(name, str, "a string"))

    def optional_text(self, name: str) -> str | None:
        return self.text(name) if name in self._table else None

    def integer(self, name: str) -> int:
        value = self._get(name, int, "an integer")
        assert isinstance(value, int)
        return value

    def optional_integer(self, name: str) -> int | None:
        return self.integer(name) if name in self._table else None

    def flag(self, name: str) -> bool:
        return name in self._table and bool(self._get(name, bool, "true or false"))

    def table(self, name: str) -> Fields:
        value = self._get(name, dict, "a table")
        assert isinstance(value, dict)
        return Fields(value, f"{self.where} {name}")

    def named(self, name: str) -> dict[str, Fields]:
        """A table of tables, by key (``[party.saffron]``)."""
        outer = self.table(name)
        return {key: outer.table(key) for key in outer}

    def tables(self, name: str) -> list[Fields]:
        """An array of tables (``[[case]]``, or a list of inline tables); empty if absent."""
        if name not in self._table:
            return []
        items = self._get(name, list, "an array of tables")
        assert isinstance(items, list)
        if not all(isinstance(item, dict) for item in items):
            raise self.fail(name, "must hold tables only")
        return [Fields(item, f"{self.where} {name}[{i}]") for i, item in enumerate(items)]

    def texts(self, name: str) -> tuple[str, ...]:
        """A list of strings; empty if absent."""
        if name not in self._table:
            return ()
        items = self._get(name, list, "a list of strings")
        assert isinstance(items, list)
        if not all(isinstance(item, str) for item in items):
            raise self.fail(name, "must hold strings only")
        return tuple(items)

    def strings(self, name: str) -> dict[str, str]:
        """A table of strings (``{ limit = "AED 50,000" }``)."""
        inner = self.table(name)
        return {key: inner.text(key) for key in inner}

    def grades(self, name: str) -> dict[str, int]:
        """A table of integers (``judged = { pmt-4101 = 2 }``); empty if absent."""
        if name not in self._table:
            return {}
        inner = self.table(name)
        return {key: inner.integer(key) for key in inner}

    def scalars(self) -> dict[str, str]:
        """Every string and integer field, as strings: the values a template may name."""
        return {
            key: str(value)
            for key, value in self._table.items()
            if isinstance(value, str | int) and not isinstance(value, bool)
        }
