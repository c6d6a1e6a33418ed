"""What two eval runs were made from, compared: the same data, or no verdict.

Every ``results.json`` carries fingerprints (content hashes) of its corpus, queries, qrels
and claims, of its grid, and the identity of the implementation, its models and ragward's
version. A regression gate compares two *systems* on the same *data*: a difference in the
data (a regraded label, an added document, another query text) would show as a regression
or an improvement that no system made, so it refuses the comparison; a difference in what
ran is what the gate exists to judge, and the summary says what it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Identity", "compare_identity"]

_DATA = ("corpus", "queries", "qrels", "claims")
_SYSTEM = ("implementation", "models", "grid", "ragward")


@dataclass(frozen=True)
class Identity:
    """How two runs' fingerprints differ."""

    data: tuple[str, ...]  # one line per difference in the data: refused unless allowed
    system: tuple[str, ...]  # one line per difference in what ran: reported


def compare_identity(baseline: Mapping[str, Any], current: Mapping[str, Any]) -> Identity:
    """The differences between the fingerprints of two checked results files."""
    before, after = baseline["fingerprints"], current["fingerprints"]
    data = tuple(
        f"{key}: baseline {_short(before['data'][key])}, current {_short(after['data'][key])}"
        for key in _DATA
        if before["data"][key] != after["data"][key]
    )
    system = tuple(
        f"{name}: baseline {_short(old)}, current {_short(new)}"
        for key in _SYSTEM
        for name, old, new in _differences(key, before[key], after[key])
    )
    return Identity(data, system)


def _differences(name: str, old: Any, new: Any) -> list[tuple[str, Any, Any]]:
    """``(name, old, new)`` for what differs, one level into objects."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        keys = sorted(set(old) | set(new), key=str)
        return [(f"{name}.{k}", old.get(k), new.get(k)) for k in keys if old.get(k) != new.get(k)]
    return [(name, old, new)]


def _short(value: Any, limit: int = 72) -> str:
    """A fingerprint as one short line: a hash cut to 12 hex digits, anything else compact."""
    if isinstance(value, str) and value.startswith("sha256:"):
        return value[: len("sha256:") + 12]
    if value is None:
        return "none"
    text = value if isinstance(value, str) else _compact(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _compact(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
