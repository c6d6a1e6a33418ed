"""ragward: conformance and evaluation suite for authorized hybrid retrieval.

The three verbs — :func:`conform` (the kit), :func:`evaluate` (the harness) and
:func:`compare` (the gate) — with :func:`load_dataset` and the contract an adapter meets
(:class:`RetrievalSystem`, :class:`Capabilities` and the records it speaks). Everything
else lives in the subpackages: ``ragward.conformance``, ``ragward.evals``,
``ragward.reference``, ``ragward.engines``, ``ragward.models``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragward.errors import BudgetError, InvalidArgument, RagwardError, VersionConflict
from ragward.exports import Exports

if TYPE_CHECKING:
    from ragward.api import compare, conform, evaluate
    from ragward.conformance.contract import Capabilities, Factory, RetrievalSystem
    from ragward.conformance.records import Asker, Doc, Hit, Policy, Result
    from ragward.conformance.runner import Report
    from ragward.evals.api import Evaluation
    from ragward.evals.datasets import load_dataset
    from ragward.evals.gate import GateResult
    from ragward.evals.grid import Grid
    from ragward.evals.grid_file import default_grid, load_grid

__version__ = "0.1.0"

__all__ = [
    "Asker",
    "BudgetError",
    "Capabilities",
    "Doc",
    "Evaluation",
    "Factory",
    "GateResult",
    "Grid",
    "Hit",
    "InvalidArgument",
    "Policy",
    "RagwardError",
    "Report",
    "Result",
    "RetrievalSystem",
    "VersionConflict",
    "__version__",
    "compare",
    "conform",
    "default_grid",
    "evaluate",
    "load_dataset",
    "load_grid",
]


# Each name is imported on first use: ``import ragward`` stays light (``ragward metrics``
# loads the measures alone; an adapter importing the contract loads no harness).
_HOME = {
    "api": ("conform", "evaluate", "compare"),
    "evals.datasets": ("load_dataset",),
    "evals.grid": ("Grid",),
    "evals.grid_file": ("default_grid", "load_grid"),
    "evals.api": ("Evaluation",),
    "evals.gate": ("GateResult",),
    "conformance.runner": ("Report",),
    "conformance.contract": ("RetrievalSystem", "Capabilities", "Factory"),
    "conformance.records": ("Doc", "Asker", "Policy", "Hit", "Result"),
}
_EXPORTS = Exports("ragward", globals(), lazy=_HOME)


def __getattr__(name: str) -> Any:
    return _EXPORTS.find(name)
