"""Eval results written by hand for the gate's tests: one place that knows their format."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["IMPLEMENTATION", "fingerprints", "results", "write_results"]

#: The implementation identity a run of the reference records.
IMPLEMENTATION = {
    "spec": "ragward.engines.reference:reference_factory",
    "capabilities": {"lexical": True, "dense": True},
    "index_settings_passed": True,
}


def fingerprints(**changes: Any) -> dict[str, Any]:
    """Fingerprints of one dataset, grid and system; ``changes`` replace top-level keys, or
    a data key (``corpus=...``)."""
    data = {"corpus": "sha256:c0", "queries": "sha256:q0", "qrels": "sha256:r0", "claims": None}
    prints: dict[str, Any] = {
        "data": data,
        "grid": "sha256:g0",
        "implementation": dict(IMPLEMENTATION),
        "models": {"hash-96": "hashing/96"},
        "ragward": "0.1.0",
    }
    for key, value in changes.items():
        if key in data:
            data[key] = value
        else:
            prints[key] = value
    return prints


PerQuery = Mapping[str, Mapping[str, float]]  # measure -> query id -> value


def results(
    settings: Mapping[str, PerQuery],
    *,
    per_claim: Mapping[str, PerQuery] | None = None,
    leaks: Mapping[str, float] | None = None,
    identity: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``results.json`` holding ``settings`` (id -> measure -> query -> value)."""
    entries = []
    for setting, per_query in settings.items():
        means = {m: _mean(v.values()) for m, v in per_query.items()}
        if leaks is not None and setting in leaks:
            means["leakage_10"] = leaks[setting]
        claims = {} if per_claim is None else per_claim.get(setting, {})
        entries.append(
            {
                "id": setting,
                "means": means,
                "per_query": {m: dict(v) for m, v in per_query.items()},
                "per_claim": {t: dict(v) for t, v in claims.items()},
            }
        )
    return {
        "format": "ragward-eval/2",
        "fingerprints": dict(identity) if identity is not None else fingerprints(),
        "settings": entries,
    }


def write_results(folder: Path, data: Mapping[str, Any]) -> Path:
    """``data`` as ``folder/results.json``; the folder is returned."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def _mean(values: Iterable[object]) -> float:
    """The mean of the numbers among ``values`` (a test may plant a string or a NaN)."""
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return sum(numbers) / len(numbers) if numbers else 0.0
