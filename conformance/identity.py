"""Which implementation a report is of, in one form for every report that names one.

``ragward conform --json`` and ``ragward eval``'s ``results.json`` both record it under
``fingerprints.implementation``, so that ``ragward gate`` can tell whether a conformance
report is of the implementation it gates by comparing the two with ``==``:

>>> ImplementationIdentity("pkg.mod:factory", Capabilities(), False).to_data()["spec"]
'pkg.mod:factory'

Whether a factory takes the index settings is read from its signature, as the evals
decide whether to pass them (:func:`takes_index_settings`).
"""

from __future__ import annotations

import inspect
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from ragward.conformance.contract import Capabilities

__all__ = [
    "INDEX_KEYWORDS",
    "ImplementationIdentity",
    "capabilities_data",
    "external_spec",
    "takes_index_settings",
    "takes_keywords",
]

#: The keywords an index setting of an eval grid is passed to a factory by.
INDEX_KEYWORDS = ("max_tokens", "overlap_tokens", "embedder")


def takes_keywords(factory: Callable[..., Any], names: tuple[str, ...]) -> bool:
    """Whether ``factory`` accepts every keyword of ``names`` (read from its signature)."""
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return True
    return all(
        name in parameters
        and parameters[name].kind
        in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for name in names
    )


def takes_index_settings(factory: Callable[..., Any]) -> bool:
    """Whether ``factory`` accepts every index keyword (read from its signature)."""
    return takes_keywords(factory, INDEX_KEYWORDS)


def external_spec(command: Sequence[str]) -> str:
    """How a peer started by ``--external`` is named: ``external:`` and its argv."""
    return f"external: {shlex.join(command)}"


def capabilities_data(capabilities: Capabilities) -> dict[str, Any]:
    """Every declared capability flag by name, ``modes`` as a list: JSON-ready."""
    data: dict[str, Any] = {}
    for field in fields(capabilities):
        value = getattr(capabilities, field.name)
        data[field.name] = list(value) if isinstance(value, tuple) else value
    return data


@dataclass(frozen=True)
class ImplementationIdentity:
    """An implementation as a report names it.

    ``spec`` is the ``--impl`` string (``pkg.module:factory`` or ``file.py:factory``, as
    given) or ``external: CMD ...`` for a peer (:func:`external_spec`); ``capabilities``
    what its systems declare; ``index_settings_passed`` whether its factory takes the
    index keywords (:data:`INDEX_KEYWORDS`), so that the evals pass a grid's chunking
    and embedder to it rather than report its own index as ``own``.
    """

    spec: str
    capabilities: Capabilities
    index_settings_passed: bool

    @classmethod
    def of(
        cls, spec: str, factory: Callable[..., Any], capabilities: Capabilities
    ) -> ImplementationIdentity:
        """The identity of ``factory``, named ``spec``, whose systems declare
        ``capabilities``."""
        return cls(spec, capabilities, takes_index_settings(factory))

    def to_data(self) -> dict[str, Any]:
        """The identity as JSON-ready data (the form both reports record)."""
        return {
            "spec": self.spec,
            "capabilities": capabilities_data(self.capabilities),
            "index_settings_passed": self.index_settings_passed,
        }
