"""A ``ragward conform --json`` report as the gate reads it: whole, and of the right system.

A conformance report only vouches for what it ran. The gate therefore counts both ``fail``
and ``error`` as failures (an implementation that answers garbage is not a pass), calls a
report *partial* when it did not run every invariant of the kit (``--select``, or an older
kit with fewer invariants), and refuses a report of another implementation than the run it
gates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragward.errors import InputError
from ragward.evals.run_results import read_json

__all__ = ["SCHEMA", "Conformance", "read_conformance"]

#: The ``schema`` of a conformance report that carries its selection and implementation.
SCHEMA = 2
_VERDICTS = frozenset({"pass", "fail", "error", "n/a"})


@dataclass(frozen=True)
class Conformance:
    """What a conformance report says, checked."""

    verdicts: int  # invariants the report holds
    failed: tuple[str, ...]  # ids whose verdict is fail or error, with the verdict
    not_run: tuple[str, ...]  # ids of the kit the report holds no verdict for
    selected: bool  # made with --select


def read_conformance(
    path: Path, implementation: Mapping[str, Any], kit: frozenset[str]
) -> Conformance:
    """The report at ``path``, checked to be of ``implementation`` (a results file's
    ``fingerprints.implementation``) and compared with the invariants ``kit`` has."""
    data = read_json(path, "conformance report")
    if not isinstance(data, dict) or not isinstance(data.get("invariants"), list):
        raise InputError.at(path, None, "invariants", "not a ragward conform --json report")
    if not _same(data.get("schema"), SCHEMA):
        raise InputError.at(
            path,
            None,
            "schema",
            f"{data.get('schema')!r}: written by an earlier ragward "
            f"conform (schema {SCHEMA} names its implementation and selection); run it again",
        )
    prints = data.get("fingerprints")
    theirs = prints.get("implementation") if isinstance(prints, dict) else None
    if not _same(theirs, implementation):
        raise InputError.at(
            path, None, "fingerprints.implementation", _mismatch(theirs, implementation)
        )
    failed: list[str] = []
    ran: set[str] = set()
    for number, entry in enumerate(data["invariants"]):
        if not isinstance(entry, dict) or not _is_id(entry.get("id")):
            raise InputError.at(path, None, f"invariants[{number}].id", "missing or not text")
        verdict = entry.get("verdict")
        if not isinstance(verdict, str) or verdict not in _VERDICTS:
            raise InputError.at(
                path, None, f"invariants[{number}].verdict", f"{verdict!r} is not a verdict"
            )
        ran.add(entry["id"])
        if verdict in ("fail", "error"):
            failed.append(f"{entry['id']} ({verdict})")
    catalogue = data.get("catalogue")
    if not isinstance(catalogue, list) or not all(map(_is_id, catalogue)):
        raise InputError.at(path, None, "catalogue", "missing or not a list of invariant ids")
    selected = data.get("selection") is not None
    not_run = tuple(sorted((set(catalogue) | kit) - ran))
    return Conformance(len(data["invariants"]), tuple(failed), not_run, selected)


def _is_id(value: Any) -> bool:
    """A string that is text: no lone surrogate (JSON's ``"\\ud800"``), which no summary
    can be written with."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _same(theirs: Any, ours: Any) -> bool:
    """Equal as JSON values: Python's ``==``, except that a boolean is not a number (``1 ==
    True`` would take a report's garbage for the implementation's capabilities)."""
    if isinstance(theirs, dict) and isinstance(ours, Mapping):
        return theirs.keys() == ours.keys() and all(_same(theirs[k], ours[k]) for k in ours)
    if isinstance(theirs, list) and isinstance(ours, list | tuple):
        return len(theirs) == len(ours) and all(map(_same, theirs, ours))
    if isinstance(theirs, bool) or isinstance(ours, bool):
        return type(theirs) is type(ours) and theirs == ours
    return not isinstance(theirs, dict | list) and theirs == ours


def _mismatch(theirs: Any, ours: Mapping[str, Any]) -> str:
    if isinstance(theirs, dict) and theirs.get("spec") == ours.get("spec"):
        keys = sorted(k for k in set(theirs) | set(ours) if not _same(theirs.get(k), ours.get(k)))
        return (
            f"{', '.join(keys)} of {ours.get('spec')!r} differ from the current run's: "
            "run conform on the system gated"
        )
    spec = theirs.get("spec") if isinstance(theirs, dict) else theirs
    return (
        f"the report is of {str(spec)[:80]!r}, the current run of {ours.get('spec')!r}: "
        "run conform on the system gated"
    )
