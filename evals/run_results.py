"""Reading an eval run's ``results.json`` for the gate: every value checked before any test.

The gate acts on what a file says, so a file is read as an adversary may have written it:
its format tag, its fingerprints, and every per-query and per-claim value (a number, not a
string or a boolean; finite; inside its measure's range) are checked first, and the first
problem is one line naming the file, the setting, the measure and the query.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ragward.errors import InputError, RagwardError
from ragward.evals.jsonl import read_text
from ragward.parsing import Unparsable, parse_json

__all__ = [
    "FORMAT",
    "LEGACY_FORMATS",
    "check_results",
    "load_results",
    "measure_range",
    "read_json",
]

#: The format tag of ``results.json``; 2 added ``fingerprints`` (what the figures were
#: computed from: :mod:`ragward.evals.fingerprints`) and named an index the implementation
#: built its own way ``own`` (its chunking and embedder null).
FORMAT = "ragward-eval/2"
#: Tags of earlier layouts: read by nothing, named in the error that refuses them.
LEGACY_FORMATS = ("ragward-eval/1",)

_FINGERPRINT_KEYS = ("data", "grid", "implementation", "models", "ragward")
_DATA_KEYS = ("corpus", "queries", "qrels", "claims")


def read_json(file: Path, what: str) -> Any:
    """The JSON in ``file``, read as every ragward file is read (gzip, a byte-order mark,
    strict UTF-8: :func:`~ragward.evals.jsonl.read_text`); any problem is one line."""
    if not file.exists() and not file.parent.is_file():
        raise InputError.at(file, None, None, f"{what} not found")
    if file.is_dir():
        raise InputError.at(file, None, None, f"is a directory, not the {what}")
    text = read_text(file)
    try:
        return parse_json(text)
    except Unparsable as error:
        raise InputError.at(file, error.line, None, f"not valid JSON: {error}") from None


def load_results(path: Path, role: str) -> dict[str, Any]:
    """A ``results.json`` (or the report directory holding one), checked whole."""
    file = path / "results.json" if path.is_dir() else path
    return check_results(read_json(file, f"{role} results"), file)


def check_results(data: Any, file: Path) -> dict[str, Any]:
    """``data`` if it is a whole, valid ``results.json`` content; errors name ``file``."""
    if not isinstance(data, dict):
        raise InputError.at(file, None, None, "not a ragward eval results file")
    tag = data.get("format")
    if tag in LEGACY_FORMATS:
        raise InputError.at(
            file,
            None,
            "format",
            f"{tag} was written before runs carried fingerprints; "
            "make the run again with this ragward eval",
        )
    if tag != FORMAT:
        raise InputError.at(file, None, "format", "not a ragward eval results file")
    _check_fingerprints(file, data.get("fingerprints"))
    settings = data.get("settings")
    if not isinstance(settings, list) or not settings:
        raise InputError.at(file, None, "settings", "missing or empty")
    seen: set[str] = set()
    for number, entry in enumerate(settings):
        where = f"settings[{number}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise InputError.at(file, None, f"{where}.id", "missing")
        if entry["id"] in seen:
            raise InputError.at(file, None, f"{where}.id", f"{entry['id']!r} appears twice")
        seen.add(entry["id"])
        where = f"setting {entry['id']!r}"
        _check_values(file, where, "per_query", entry.get("per_query"), claims=False)
        _check_values(file, where, "per_claim", entry.get("per_claim", {}), claims=True)
        if not isinstance(entry.get("means", {}), dict):
            raise InputError.at(file, None, f"{where} means", "not an object")
    return data


def measure_range(name: str) -> tuple[float, float]:
    """The values a per-query measure can take: counts are >= 0, every other is in [0, 1]."""
    from ragward.evals.measures import parse_measure

    if name.startswith("leakage_"):
        return 0.0, 1.0
    try:
        (measure,) = parse_measure(name)
    except (RagwardError, ValueError):
        raise InputError(f"measure {name!r} is not one ragward computes") from None
    return (0.0, math.inf) if measure.counts else (0.0, 1.0)


def _check_fingerprints(file: Path, fingerprints: Any) -> None:
    if not isinstance(fingerprints, dict):
        raise InputError.at(file, None, "fingerprints", "missing")
    for key in _FINGERPRINT_KEYS:
        if key not in fingerprints:
            raise InputError.at(file, None, f"fingerprints.{key}", "missing")
    data = fingerprints["data"]
    if not isinstance(data, dict) or any(key not in data for key in _DATA_KEYS):
        raise InputError.at(file, None, "fingerprints.data", f"needs {', '.join(_DATA_KEYS)}")
    if not isinstance(fingerprints["implementation"], dict):
        raise InputError.at(file, None, "fingerprints.implementation", "not an object")


def _check_values(file: Path, where: str, field: str, values: Any, *, claims: bool) -> None:
    unit_kind = "claim" if claims else "query"
    if not isinstance(values, dict):
        raise InputError(f"{file}: {where}: {field} missing or not an object")
    for measure, by_unit in values.items():
        label, low, high = f"grounding_accuracy@{measure}", 0.0, 1.0
        if not claims:
            label = measure
            try:
                low, high = measure_range(measure)
            except InputError as error:
                raise InputError(f"{file}: {where}: {error}") from None
        if not isinstance(by_unit, dict) or not by_unit:
            raise InputError(f"{file}: {where}, measure {label}: no per-{unit_kind} values")
        for unit, value in by_unit.items():
            place = f"{file}: {where}, measure {label}, {unit_kind} {unit!r}"
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputError(f"{place}: {value!r} is not a number")
            if not low <= value <= high:  # NaN fails every comparison
                shown = "[0, 1]" if high == 1.0 else "[0, inf)"
                raise InputError(f"{place}: {value!r} is outside {shown}")
