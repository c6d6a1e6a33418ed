"""A package's attributes found on first use: exports imported lazily, former names.

A package's ``__getattr__`` (PEP 562) hands the names it does not hold to
:meth:`Exports.find`: a lazy export is imported from its home module on first use (and
kept, so the next use is a plain attribute), a former name warns with a
:class:`DeprecationWarning` and gives the current one, anything else is an
:class:`AttributeError`, as for any module.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Exports"]


@dataclass(frozen=True)
class Exports:
    """The names ``package`` resolves on demand: ``lazy`` maps a module of the package to
    the names it exports lazily; ``former`` maps a deprecated name to its current one.

    >>> exports = Exports("ragward.evals", {}, lazy={"records": ("Query",)})
    >>> exports.find("Query").__name__
    'Query'
    """

    package: str
    namespace: dict[str, Any] = field(repr=False)
    lazy: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    former: Mapping[str, str] = field(default_factory=dict)
    #: Each lazy name's module, from ``lazy``.
    homes: Mapping[str, str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        homes = {name: home for home, names in self.lazy.items() for name in names}
        object.__setattr__(self, "homes", homes)

    def find(self, name: str) -> Any:
        """The value of ``name``, as the package's ``__getattr__`` returns it."""
        home = self.homes.get(name)
        if home is not None:
            value = getattr(importlib.import_module(f"{self.package}.{home}"), name)
            self.namespace[name] = value
            return value
        current = self.former.get(name)
        if current is not None:
            warnings.warn(
                f"{self.package}.{name} is deprecated: use {self.package}.{current}",
                DeprecationWarning,
                stacklevel=3,  # the importer, past the package's __getattr__
            )
            return self.namespace[current]
        raise AttributeError(f"module {self.package!r} has no attribute {name!r}")

    def names(self) -> list[str]:
        """What ``dir(package)`` lists: what it holds and its lazy exports."""
        return sorted({*self.namespace, *self.homes})
