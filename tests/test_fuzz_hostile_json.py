"""Hostile JSON where a command reads what another program wrote (issue 30): a conformance
report (``gate --conformance``) and a wire peer's answers (``eval --external``).

Each input is a valid one with one place changed by a drawn
:class:`~tests.fuzz_hostile.Hostile` (a value of another JSON type, a field dropped or
added, ``NaN``, ``1e400``, five thousand digits, nesting past any parser, a megabyte
string) or by a byte-level :class:`~tests.fuzz_inputs.Mutation`. Beyond exit 0, 1 or 2 in
at most one line with no traceback, each test knows, from what the change did, what the
command must conclude:

* ``gate``: the report is read by the format ``conform --json`` writes, checked here on
  its own (:func:`_report_code`): exit 2 for a report that is not one (or not of the
  gated run's implementation, compared as JSON: ``true`` is not ``1``), else 1 for a
  failed, errored or partial one, else 0. A verdict is never built from garbage.
* ``eval --external``: an answer the protocol refuses (not JSON, an envelope field
  changed, a value of another JSON type in a result, an unknown field in a record) is
  exit 2; an unchanged run is exit 0; anything else (a huge string, a non-finite score,
  a field dropped that has a default) may be 0, 1 or 2.

``ci`` runs a few dozen reports and a few peers; ``RAGWARD_HYPOTHESIS_PROFILE=thorough``
runs a thousand reports and a hundred peers.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ragward.cli import main
from tests.commands import Inputs, write_inputs
from tests.fuzz_hostile import Hostile, changed, hostiles, json_class, loads
from tests.fuzz_inputs import Mutation, apply, mutations

PROFILE = settings.default.max_examples if settings.default else 60
HOSTILE = settings(
    max_examples=PROFILE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_VERDICTS = ("pass", "fail", "error", "n/a")


def _kit() -> list[str]:
    from ragward.api import _kit as kit

    return sorted(kit())


def _same(a: Any, b: Any) -> bool:
    """JSON equality: as Python's ``==``, but a boolean is no number and NaN no value."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return json_class(a) == json_class(b) and a == b


def _text(value: Any) -> bool:
    """A string a file can hold (no lone surrogate)."""
    return isinstance(value, str) and value == value.encode("utf-8", "replace").decode()


def _report_code(text: bytes, implementation: dict[str, Any], kit: list[str]) -> int:
    """The gate's exit for a report ``text``, by the report format alone (see module)."""
    try:
        decoded = text.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return 2
    parsed, data = loads(decoded)
    if not parsed or not isinstance(data, dict) or not isinstance(data.get("invariants"), list):
        return 2
    prints = data.get("fingerprints")
    theirs = prints.get("implementation") if isinstance(prints, dict) else None
    if not _same(data.get("schema"), 2) or not _same(theirs, implementation):
        return 2
    entries, catalogue = data["invariants"], data.get("catalogue")
    for entry in entries:
        if not isinstance(entry, dict) or not _text(entry.get("id")):
            return 2
        if not isinstance(entry.get("verdict"), str) or entry["verdict"] not in _VERDICTS:
            return 2
    if not isinstance(catalogue, list) or not all(_text(i) for i in catalogue):
        return 2
    failed = any(entry["verdict"] in ("fail", "error") for entry in entries)
    missing = (set(catalogue) | set(kit)) - {entry["id"] for entry in entries}
    return 1 if failed or missing or data.get("selection") is not None else 0


def _holds(code: int, err: str) -> None:
    assert code in (0, 1, 2), f"exit {code}: {err[-2000:]}"
    assert "Traceback" not in err, err[-2000:]
    if code in (1, 2):
        assert len(err.splitlines()) <= 1, err[-2000:]
        assert all(len(line) < 3000 for line in err.splitlines())


@contextlib.contextmanager
def _inputs() -> Iterator[Inputs]:
    with tempfile.TemporaryDirectory() as folder:
        yield write_inputs(Path(folder) / "in")


@HOSTILE
@given(
    base=st.sampled_from(["pass", "fail", "selected"]),
    change=hostiles() | mutations(),
)
def test_gate_on_a_hostile_conformance_report_concludes_what_the_report_says(
    base: str, change: Hostile | Mutation
) -> None:
    with _inputs() as inputs:
        current = json.loads((inputs.current / "results.json").read_text(encoding="utf-8"))
        implementation = current["fingerprints"]["implementation"]
        kit = _kit()
        report = {
            "schema": 2,
            "implementation": implementation["spec"],
            "fingerprints": {"implementation": implementation, "ragward": "0.1.0"},
            "selection": [kit[0]] if base == "selected" else None,
            "catalogue": kit,
            "invariants": [
                {"id": i, "verdict": "fail" if base == "fail" and i == kit[-1] else "pass"}
                for i in kit
            ],
        }
        if isinstance(change, Hostile):
            copy = json.loads(json.dumps(report))  # changed in place: not the expected one
            text = changed(copy, change).text.encode("utf-8", "surrogatepass")
        else:
            text = apply(json.dumps(report).encode(), change)
        path = inputs.root / "conform.json"
        path.write_bytes(text)
        argv = ["gate", "--baseline", str(inputs.baseline), "--current", str(inputs.current),
                "--trials", "50", "--conformance", str(path),
                "--summary", str(inputs.root / "gate.md")]  # fmt: skip
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(argv)
        _holds(code, err.getvalue())
        event(f"exit {code}")
        assert code == _report_code(text, implementation, kit), err.getvalue()[-2000:]


#: A wire peer serving the reference whose answer number N (from 1) is changed by a
#: Hostile, read with N from a file (a megabyte does not fit in an argument); what the
#: change did goes to another file, for the test to judge.
PEER = """\
import json, sys
sys.path.insert(0, sys.argv[1])
from ragward.engines.reference import reference_factory
from ragward.conformance.wire_server import serve
from tests.fuzz_hostile import Hostile, changed, loads
from tests.fuzz_inputs import Mutation, apply

with open(sys.argv[2], encoding="utf-8") as spec_file:
    spec = json.load(spec_file)

class Sink:
    count = 0

    def write(self, text):
        Sink.count += 1
        if Sink.count != spec["n"]:
            return sys.stdout.write(text)
        if "mutation" in spec:  # bytes changed: judged by whether the line is still JSON
            line = apply(text.rstrip("\\n").encode(), Mutation(**spec["mutation"]))
            line = line.replace(b"\\n", b" ").replace(b"\\r", b" ")
            done = {"path": [], "before": None, "added": False, "dropped": False,
                    "parsed": loads(line)[0] and line.strip() != b"", "after": None}
            if done["parsed"]:
                done.update(path=["(bytes)"], before=json.loads(text), after=loads(line)[1])
        else:
            change = changed(json.loads(text), Hostile(**spec["hostile"]))
            parsed, value = loads(spec["hostile"]["raw"])
            line = change.text.encode("utf-8", "surrogatepass")
            done = {"path": change.path, "before": change.before, "added": change.added,
                    "dropped": change.dropped, "parsed": parsed,
                    "after": value if parsed else None}
        with open(sys.argv[3], "w", encoding="utf-8") as record:
            json.dump({**done, "line": text[:300]}, record)
        sys.stdout.buffer.write(line + b"\\n")

    def flush(self):
        sys.stdout.flush()

serve(reference_factory, stdout=Sink())
"""

_ENVELOPE = ("ragward", "id", "ok")


def _refused(change: dict[str, Any]) -> bool:
    """Whether the protocol refuses the answer as changed (see the module's docstring)."""
    path, before, after = change["path"], change["before"], change["after"]
    if path == ["(bytes)"]:  # still JSON after its bytes changed
        return (
            not isinstance(after, dict)
            or any(not _same(after.get(key), before.get(key)) for key in _ENVELOPE)
            or ("result" in before and "result" not in after)
        )
    if change["dropped"]:
        return len(path) == 1 and path[0] in (*_ENVELOPE, "result")
    if not change["parsed"] or not path:  # the line is no longer JSON, or not an object
        return True
    if len(path) == 1:
        return path[0] in _ENVELOPE and (change["added"] or not _same(after, before))
    if path[0] != "result":
        return False
    if change["added"]:  # an unknown field of a record, or an array grown (may be fine)
        return isinstance(path[-1], str)
    return before is not None and after is not None and json_class(after) != json_class(before)


@pytest.mark.slow
@settings(HOSTILE, max_examples=max(5, PROFILE // 9))  # a process and a peer each
@given(change=hostiles() | mutations(), n=st.integers(min_value=1, max_value=20))
def test_eval_external_on_a_hostile_answer_refuses_what_the_protocol_refuses(
    change: Hostile | Mutation, n: int
) -> None:
    root = Path(__file__).resolve().parent.parent
    with _inputs() as inputs:
        folder = inputs.root
        (folder / "peer.py").write_text(PEER, encoding="utf-8")
        kind = "hostile" if isinstance(change, Hostile) else "mutation"
        spec = {kind: change.__dict__, "n": n}
        (folder / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        record = folder / "change.json"
        peer = [sys.executable, str(folder / "peer.py"), str(root), str(folder / "spec.json")]
        command = shlex.join([*peer, str(record)])
        done = subprocess.run(
            [sys.executable, "-m", "ragward", "eval", "--dataset", str(inputs.data),
             "--grid", str(inputs.grid), "--external", command, "--out", str(folder / "out"),
             "--quiet"],
            capture_output=True, text=True, cwd=folder, timeout=300,
            env={**os.environ, "RAGWARD_CACHE": "off"},
        )  # fmt: skip
        err = done.stderr
        # eval says how it fitted the grid to the peer and what it ran: not error lines
        lines = [line for line in err.splitlines() if not _note(line)]
        _holds(done.returncode, "\n".join(lines))
        if not record.exists():  # the peer was asked fewer questions: a valid run
            assert done.returncode == 0, err[-2000:]
            return
        what = json.loads(record.read_text(encoding="utf-8"))
        event(f"exit {done.returncode}, {'refused' if _refused(what) else 'free'}")
        if _refused(what):
            assert done.returncode == 2, f"{what}\n{err[-2000:]}"
            assert lines[-1].startswith("ragward eval: error: "), err[-2000:]


def _note(line: str) -> bool:
    return line.startswith("ragward eval: grid fitted to external") or line.endswith(" s")
