"""One exception tree for everything ragward raises on purpose.

Every error a user can cause derives from :class:`RagwardError`; the command line turns
these into one line on stderr and exit code 2, never a traceback (see :mod:`ragward.exits`
for the other exit codes).
"""

from __future__ import annotations

__all__ = [
    "AdapterError",
    "BudgetError",
    "InputError",
    "InvalidArgument",
    "MissingExtra",
    "OutputError",
    "RagwardError",
    "VersionConflict",
]


class RagwardError(Exception):
    """Base of every error ragward raises deliberately."""


class InvalidArgument(RagwardError, ValueError):
    """A value failed validation; the message names the field and the value."""


class VersionConflict(RagwardError, ValueError):
    """An ingest carried a version that is not newer than the one already indexed."""


class BudgetError(RagwardError, ValueError):
    """The fixed prompt segments alone do not fit the token budget."""


class InputError(RagwardError, ValueError):
    """A user's file is malformed; the message names the file, the line and the field.

    ``InputError.at(path, line, field, problem)`` builds the one-line message in the form
    every loader uses: ``corpus.jsonl line 7: field 'classification': unknown value 'secret'``.
    """

    @classmethod
    def at(cls, path: object, line: int | None, field: str | None, problem: str) -> InputError:
        where = str(path) if line is None else f"{path} line {line}"
        what = problem if field is None else f"field {field!r}: {problem}"
        return cls(f"{where}: {what}")


class MissingExtra(RagwardError, ImportError):
    """An optional part is not installed; the message names the extra that brings it."""


class OutputError(RagwardError, ValueError):
    """An output path cannot be written; the message names the option and the path."""


class AdapterError(RagwardError, ValueError):
    """The implementation under evaluation broke its contract (raised, or returned the
    wrong type); the message names the implementation and the call."""
