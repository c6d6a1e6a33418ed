"""Eval results written by hand for the gate's tests: one place that knows their format."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["results", "write_results"]

PerQuery = Mapping[str, Mapping[str, float]]  # measure -> query id -> value


def results(
    settings: Mapping[str, PerQuery],
    *,
    per_claim: Mapping[str, PerQuery] | None = None,
    leaks: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """A ``results.json`` holding ``settings`` (id -> measure -> query -> value)."""
    entries = []
    for setting, per_query in settings.items():
        means = {m: sum(v.values()) / len(v) for m, v in per_query.items()}
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
    return {"format": "ragward-eval/1", "settings": entries}


def write_results(folder: Path, data: Mapping[str, Any]) -> Path:
    """``data`` as ``folder/results.json``; the folder is returned."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return folder
