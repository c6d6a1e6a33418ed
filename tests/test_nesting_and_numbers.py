"""Input that breaks a parser or a number type is bad input (exit 2), never an internal
error (issue 30, defect 7).

Python's parsers fail in more ways than their documented error: JSON or TOML nested ten
thousand deep raises RecursionError, an integer of thousands of digits a plain ValueError,
and a number too large for a 64-bit field OverflowError or MemoryError far from where it
was read. Every reader and every limit is checked here: one line on stderr naming the
file (and the line where it is known), exit 2, nothing written.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ragward.errors import InvalidArgument
from ragward.evals.datasets import load_dataset
from ragward.reference import AuthorizedRetriever, ReferenceAsker, ReferenceDoc, ReferencePolicy
from tests.commands import Inputs, one_error_line, run, snapshot, write_inputs
from tests.evals.dataset_files import write_dataset

DEEP_JSON = "[" * 10_000 + "]" * 10_000
DEEP_TOML = "[" * 10_000 + "]" * 10_000
DIGITS = "9" * 5_000  # more than Python converts (4300)


def test_a_json_line_nested_ten_thousand_deep_is_exit_2_naming_its_line(tmp_path: Path) -> None:
    data = write_dataset(
        tmp_path / "data",
        changes={"queries.jsonl": {2: '{"_id": "q2", "text": ' + DEEP_JSON + "}"}},
    )
    done = subprocess.run(
        [sys.executable, "-m", "ragward", "eval", "--dataset", str(data), "--out", "o", "--quiet"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    line = one_error_line(done.stderr, "eval")
    assert "queries.jsonl line 2: invalid JSON: nested too deeply" in line
    assert not (tmp_path / "o").exists()


def _dataset_file(name: str, line: int, text: str) -> Callable[[Inputs], list[str]]:
    def argv(i: Inputs) -> list[str]:
        target = i.data / name
        lines = target.read_text(encoding="utf-8").splitlines()
        lines[line - 1] = text
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return ["eval", "--dataset", str(i.data), "--grid", str(i.grid), "--out", "o", "--quiet"]

    return argv


def _grid(text: str) -> Callable[[Inputs], list[str]]:
    def argv(i: Inputs) -> list[str]:
        i.grid.write_text(text, encoding="utf-8")
        return ["eval", "--dataset", str(i.data), "--grid", str(i.grid), "--out", "o", "--quiet"]

    return argv


def _gate_baseline(text: str) -> Callable[[Inputs], list[str]]:
    def argv(i: Inputs) -> list[str]:
        (i.baseline / "results.json").write_text(text, encoding="utf-8")
        return ["gate", "--baseline", str(i.baseline), "--current", str(i.current)]

    return argv


def _replay(text: str) -> Callable[[Inputs], list[str]]:
    def argv(i: Inputs) -> list[str]:
        (i.root / "case.json").write_text(text, encoding="utf-8")
        return ["conform", "--replay", str(i.root / "case.json")]

    return argv


def _earlier_report(text: str) -> Callable[[Inputs], list[str]]:
    """An --out folder whose results.json is not JSON that parses: not ragward's report."""

    def argv(i: Inputs) -> list[str]:
        (i.root / "o").mkdir()
        (i.root / "o" / "results.json").write_text(text, encoding="utf-8")
        out = str(i.root / "o")
        return ["eval", "--dataset", str(i.data), "--grid", str(i.grid), "--out", out, "--quiet"]

    return argv


def _trec(qrels: str, run_line: str) -> Callable[[Inputs], list[str]]:
    def argv(i: Inputs) -> list[str]:
        i.qrels.write_text(qrels, encoding="utf-8")
        i.run.write_text(run_line, encoding="utf-8")
        return ["metrics", str(i.qrels), str(i.run)]

    return argv


GRADE = "9" * 400  # converts, but overflows a float in the sums of gains

CASES: list[tuple[str, str, Callable[[Inputs], list[str]], str]] = [
    # (id, command, argv, what the line says)
    ("corpus-deep", "eval", _dataset_file("corpus.jsonl", 1, DEEP_JSON), "line 1: invalid JSON"),
    ("claims-deep", "eval", _dataset_file("claims.jsonl", 1, DEEP_JSON), "line 1: invalid JSON"),
    (
        "corpus-digits",
        "eval",
        _dataset_file("corpus.jsonl", 1, '{"_id": "d1", "text": "x", "version": ' + DIGITS + "}"),
        "corpus.jsonl line 1: invalid JSON: an integer with too many digits",
    ),
    (
        "corpus-tick-2**63",
        "eval",
        _dataset_file(
            "corpus.jsonl", 1, json.dumps({"_id": "d1", "text": "x", "updated_tick": 2**63})
        ),
        "corpus.jsonl line 1: field 'updated_tick': must be <= 2**63 - 1",
    ),
    (
        "qrels-grade-digits",
        "eval",
        _dataset_file("qrels/test.tsv", 2, f"q1\td1\t{DIGITS}"),
        "test.tsv line 2: field 'score': grade '9999",
    ),
    (
        "qrels-grade-overflow",
        "eval",
        _dataset_file("qrels/test.tsv", 2, f"q1\td1\t{GRADE}"),
        "out of range",
    ),
    (
        "grid-deep-array",
        "eval",
        _grid(f"depth = {DEEP_TOML}\n"),
        "not valid TOML: nested too deeply",
    ),
    (
        "grid-deep-table",
        "eval",
        _grid("depth = " + "{a = " * 10_000 + "1" + "}" * 10_000 + "\n"),
        "not valid TOML: nested too deeply",
    ),
    (
        "grid-digits",
        "eval",
        _grid(f"depth = {DIGITS}\n"),
        "not valid TOML: an integer with too many",
    ),
    (
        "grid-cutoff-digits",
        "eval",
        _grid(f'measures = ["P_{DIGITS}"]\n'),
        "is not a positive integer",
    ),
    (
        "grid-ir-cutoff-digits",
        "eval",
        _grid(f'measures = ["nDCG@{DIGITS}"]\n'),
        "is not a positive integer",
    ),
    ("gate-deep", "gate", _gate_baseline(DEEP_JSON), "not valid JSON: nested too deeply"),
    ("gate-digits", "gate", _gate_baseline(DIGITS), "not valid JSON: an integer with too many"),
    ("replay-deep", "conform", _replay(DEEP_JSON), "not JSON (nested too deeply)"),
    ("out-marker-deep", "eval", _earlier_report(DEEP_JSON), "results.json"),
    (
        "metrics-grade",
        "metrics",
        _trec(f"q1 0 d1 {GRADE}\n", "q1 Q0 d1 1 1.0 t\n"),
        "field 'rel': grade '9999",
    ),
    (
        "metrics-grade-digits",
        "metrics",
        _trec(f"q1 0 d1 {DIGITS}\n", "q1 Q0 d1 1 1.0 t\n"),
        "out of range",
    ),
]


@pytest.mark.parametrize(
    ("command", "argv", "expected"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_every_reader_refuses_what_breaks_its_parser_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    argv: Callable[[Inputs], list[str]],
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    inputs = write_inputs(tmp_path / "in")
    arguments = argv(inputs)
    before = snapshot(tmp_path)
    code, out, err = run(arguments, capsys)
    assert code == 2, err
    assert expected in one_error_line(err, command)
    assert len(err) < 1000  # the 5,000 digits are not repeated
    assert out == ""
    assert snapshot(tmp_path) == before


def test_a_freshness_contract_of_2_to_the_63_is_refused_at_load(tmp_path: Path) -> None:
    query = {"_id": "q3", "text": "deal?", "max_stale_ticks": 2**63}
    data = write_dataset(tmp_path, changes={"queries.jsonl": {3: json.dumps(query)}})
    with pytest.raises(
        ValueError, match=r"line 3: field 'max_stale_ticks': must be <= 2\*\*63 - 1"
    ):
        load_dataset(data)


@pytest.mark.parametrize(
    "field", ["result_limit", "candidate_limit", "max_stale_ticks"], ids=lambda f: f
)
@pytest.mark.parametrize("value", [2**63, 10**30], ids=["2**63", "10**30"])
def test_a_policy_out_of_64_bits_is_an_invalid_argument(field: str, value: int) -> None:
    with pytest.raises(InvalidArgument, match=f"ReferencePolicy.{field} must be") as caught:
        ReferencePolicy(**{field: value})  # type: ignore[arg-type]
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("unit", ["chunks", "documents"])
@pytest.mark.parametrize("mode", ["hybrid", "lexical", "dense"])
def test_the_largest_limits_answer_like_generous_ones(unit: str, mode: str) -> None:
    """A limit of 2**63 - 1 is allowed, so no stage may size anything by it."""
    retriever = AuthorizedRetriever()
    for number in range(12):
        retriever.ingest(ReferenceDoc(f"d{number}", "t", "", f"alpha beta {number} " * 20))
    asker = ReferenceAsker("u", "t")

    def ask(limit: int) -> tuple[str, ...]:
        policy = ReferencePolicy(
            candidate_limit=limit,
            result_limit=limit,
            mode=mode,
            limit_unit=unit,
            max_stale_ticks=2**63 - 1,
            enable_rerank=True,
        )
        return retriever.retrieve("alpha beta", asker, now_tick=0, policy=policy).citations

    assert ask(2**63 - 1) == ask(10_000)
    assert len(ask(2**63 - 1)) >= 12


def test_a_peer_answering_json_nested_too_deeply_is_a_wire_error() -> None:
    from tests.conformance.test_wire import _failure, _peer

    message = _failure(_peer(f'print(\'{{"ragward": 1, "x": {DEEP_JSON}}}\', flush=True)'))
    assert "answered hello (request 1) with a line that is not JSON (nested too deeply)" in message
    assert len(message) < 600


def test_the_wire_server_answers_a_request_nested_too_deeply_and_keeps_serving() -> None:
    from tests.conformance.test_wire import _request, _serve

    error, last = _serve('{"id": 1, "x": ' + DEEP_JSON + "}", _request(2, "hello"))
    assert error["error"]["kind"] == "protocol"
    assert error["error"]["message"].startswith("request is not JSON (nested too deeply)")
    assert (last["id"], last["ok"]) == (2, True)
