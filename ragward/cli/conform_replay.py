"""``ragward conform --replay FILE``: a stored counterexample run again, and explained.

The case prints again as a failing run prints it, with what failed, under a plain
verdict: ``ISO-002 now holds on <impl>`` (exit 0, the stored reason and diff shown as
what it *was*) or ``ISO-002 still fails on <impl>:`` with today's reason and diff (exit
1). With ``--emit-test FILE`` a case that
still fails is also written as a pytest file (:mod:`ragward.conformance.emit`).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragward.errors import InvalidArgument
from ragward.outputs import write_atomic
from ragward.parsing import Unparsable, parse_json

if TYPE_CHECKING:
    from ragward.conformance.contract import Factory
    from ragward.conformance.runner import Verdict

__all__ = ["emit_command", "replay_stored", "write_test"]


def replay_stored(
    path: Path,
    wanted: str | None,
    implementation: tuple[Factory, str, str],
    call_timeout: float,
    emit: Path | None = None,
    peer: Sequence[str] | None = None,
) -> int:
    """Replay the stored case of ``path`` (invariant ``wanted``, or its one failure) on
    ``implementation`` (factory, display name, the options that select it); print it and
    whether it now holds; 0 when it holds, 1 when it still fails."""
    from ragward.clipped import later_lines
    from ragward.conformance.guard import CallTimeout, guarded
    from ragward.conformance.invariant import REGISTRY, Violation
    from ragward.conformance.loading import check_system, one_line
    from ragward.conformance.records import case_data, from_data
    from ragward.conformance.report import format_counterexample
    from ragward.conformance.runner import DETAIL_LINES, Verdict, replay, said

    factory, name, origin = implementation
    entry = _stored_case(path, wanted)
    invariant = REGISTRY[entry["id"]]
    try:
        case = from_data(invariant.case_type, entry["counterexample"])
    except TypeError as error:
        raise InvalidArgument(f"{path}: counterexample of {invariant.id}: {error}") from None
    check_system(guarded(factory, call_timeout), name)
    detail: tuple[str, ...] = ()
    try:
        replay(factory, invariant.id, entry["counterexample"], call_timeout=call_timeout)
    except Violation as violation:
        status, (reason, detail) = "fail", said(violation)
    except CallTimeout as error:
        status, reason = "error", str(error)
    except Exception as error:  # the implementation crashed on the case: that is a finding
        status, reason = "error", one_line(error)
    else:
        status = reason = ""
    selects = shlex.split(origin)
    hint = shlex.join(
        ["ragward", "conform", *selects, "--replay", str(path), "--invariant", invariant.id]
    )
    where = f"stored in {path}"
    data = case_data(case)  # in the case's field order, not the file's sorted one
    if not status:
        stored = entry.get("diff")
        was = Verdict(
            invariant.id,
            invariant.level,
            invariant.title,
            "fail",
            1,
            str(entry.get("reason") or entry.get("verdict") or "failed"),
            data,
            hint,
            # A file's diff is outside text: bounded and escaped as a violation's is.
            detail=later_lines("was\n" + "\n".join(map(str, stored)), DETAIL_LINES)
            if isinstance(stored, list)
            else (),
        )
        print(f"{invariant.id} now holds on {name}\n")
        print(format_counterexample(was, label="was", origin=where))
        if emit is not None:
            print(f"\nno test written to {emit}: the case no longer fails")
        return 0
    verdict = Verdict(
        invariant.id, invariant.level, invariant.title, status, 1, reason, data, hint, detail=detail
    )
    print(f"{invariant.id} still fails on {name}:\n")
    print(format_counterexample(verdict, origin=where))
    if emit is not None:
        made_by = f"{hint} --emit-test {shlex.quote(str(emit))}"
        write_test(emit, verdict, name, peer, made_by)
    return 1


def emit_command(origin: str, select: str, emit: Path) -> str:
    """The command line of a run that writes a test: for the emitted file's docstring."""
    selects = shlex.split(origin)
    return shlex.join(
        ["ragward", "conform", *selects, "--select", select, "--emit-test", str(emit)]
    )


def write_test(
    target: Path, verdict: Verdict, name: str, peer: Sequence[str] | None, made_by: str
) -> None:
    """Write the pytest file of ``verdict`` to ``target`` (whole or not at all) and say so."""
    from ragward.conformance.emit import emit_test

    write_atomic(target, emit_test(verdict, impl=name, peer=peer, made_by=made_by))
    print(
        f"\ntest written to {target}: it fails on {name} while {verdict.id} fails on its "
        "counterexample, and passes once it holds"
    )


def _stored_case(path: Path, wanted: str | None) -> dict[str, Any]:
    """The per-invariant entry to replay, from a whole report or from one entry."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance.invariant import REGISTRY

    try:
        data = parse_json(path.read_bytes())
    except OSError as error:
        raise InvalidArgument(f"--replay {path}: {error.strerror or error}") from None
    except Unparsable as error:
        where = f"{path} line {error.line}" if error.line is not None else str(path)
        raise InvalidArgument(f"--replay {where}: not JSON ({error})") from None
    if isinstance(data, dict) and isinstance(data.get("invariants"), list):
        entries = [e for e in data["invariants"] if isinstance(e, dict)]
        if wanted is None:
            failing = [e for e in entries if e.get("verdict") in ("fail", "error")]
            if len(failing) != 1:
                ids = ", ".join(str(e.get("id")) for e in failing) or "none"
                raise InvalidArgument(
                    f"--replay {path}: the report has {len(failing)} failures ({ids}); "
                    "name one with --invariant ID"
                )
            entry = failing[0]
        else:
            found = [e for e in entries if e.get("id") == wanted]
            if not found:
                raise InvalidArgument(f"--replay {path}: the report has no invariant {wanted}")
            entry = found[0]
    elif isinstance(data, dict) and "id" in data and "counterexample" in data:
        entry = data
        if wanted is not None and wanted != data["id"]:
            raise InvalidArgument(f"--replay {path} holds {data['id']}, not {wanted}")
    else:
        raise InvalidArgument(
            f"--replay {path}: not a ragward conform report nor one invariant's entry of it"
        )
    if entry.get("id") not in REGISTRY:
        raise InvalidArgument(f"--replay {path}: unknown invariant id {entry.get('id')!r}")
    if entry.get("counterexample") is None:
        raise InvalidArgument(
            f"--replay {path}: {entry['id']} has no stored counterexample "
            f"(verdict {entry.get('verdict', '?')}); re-run it with --select {entry['id']}"
        )
    return entry
