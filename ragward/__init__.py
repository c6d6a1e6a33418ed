"""ragward: conformance and evaluation suite for authorized hybrid retrieval."""

from ragward.errors import BudgetError, InvalidArgument, RagwardError, VersionConflict

__version__ = "0.1.0"

__all__ = [
    "BudgetError",
    "InvalidArgument",
    "RagwardError",
    "VersionConflict",
    "__version__",
]
