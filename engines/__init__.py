"""Adapters that put real retrieval engines behind the conformance kit's contract.

Each engine module (:mod:`~ragward.engines.qdrant`, :mod:`~ragward.engines.postgres`,
:mod:`~ragward.engines.lancedb`) and each framework's retrievers
(:mod:`~ragward.engines.llamaindex`, :mod:`~ragward.engines.langchain`) offers one factory
per *configuration* a user might pick — Qdrant with collection-wide or filter-scoped IDF,
pgvector exact or HNSW, LanceDB with the filter before or after the vector search,
LlamaIndex's BM25 filter or a retriever per tenant — addressable as
``--impl ragward.engines.<engine>:<configuration>``. The modules import their engine
lazily, so listing them (``ragward engines``) needs none installed; building one that is
missing is a one-line :class:`~ragward.errors.MissingExtra` naming the extra.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass

__all__ = ["ENGINE_MODULES", "Configuration", "configurations", "find"]

#: The engine modules, in the order ``ragward engines`` lists them.
ENGINE_MODULES: tuple[str, ...] = ("qdrant", "postgres", "lancedb", "llamaindex", "langchain")


@dataclass(frozen=True)
class Configuration:
    """One engine setting, as ``ragward engines`` lists it.

    ``name`` is the factory's attribute in ``ragward.engines.<engine>``; ``extra`` the
    pip extra that brings what it needs, ``modules`` the importable modules it needs (to
    tell installed from missing without importing them), ``needs`` anything else (a
    server binary, an environment variable), ``summary`` one line on what it is.
    ``in_matrix`` says whether the verdict matrix runs it (False for one that reaches a
    deployment, which the tests here cannot start).
    """

    engine: str
    name: str
    summary: str
    extra: str
    modules: tuple[str, ...]
    needs: str = ""
    in_matrix: bool = True

    @property
    def impl(self) -> str:
        """The ``--impl`` string that selects it."""
        return f"ragward.engines.{self.engine}:{self.name}"

    def missing(self) -> list[str]:
        """The modules it needs that are not installed."""
        return [m for m in self.modules if not _installed(m)]


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported, found without importing it (beyond its parent
    packages, which ``find_spec`` of a dotted name imports and which raise when absent)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def configurations() -> list[Configuration]:
    """Every configuration of every engine module, in listing order."""
    found: list[Configuration] = []
    for engine in ENGINE_MODULES:
        module = importlib.import_module(f"ragward.engines.{engine}")
        found.extend(module.CONFIGURATIONS)
    return found


def find(impl: str) -> Configuration | None:
    """The configuration an ``--impl`` string names, or None when it names none."""
    return next((c for c in configurations() if c.impl == impl), None)
