"""One exception tree for everything ragward raises on purpose.

Every error a user can cause derives from :class:`RagwardError`; the command line turns
these into one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "InvalidArgument",
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
