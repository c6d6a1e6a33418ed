"""The low defects of issue 30 (defect 10), each with its siblings.

* bad UTF-8 was reported by byte offset (into a block the reader had decoded), not line;
* control characters of names (a tenant ``acme\\x1b[2J``) were printed raw, to a terminal;
* the replay line of a failing invariant left out the ``--call-timeout`` the run had;
* ``metrics`` read ``1e400`` and ``inf`` differently (now alike: both infinity);
* ``delete(None, None)`` was accepted as a document that happens to be absent.
"""

from __future__ import annotations

import gzip
import unicodedata
from pathlib import Path

import pytest

from ragward.conformance.report import format_counterexample
from ragward.conformance.runner import Verdict
from ragward.engines.reference import reference_factory
from ragward.errors import InputError, InvalidArgument
from ragward.reference import AuthorizedRetriever
from tests.commands import break_work, by_name, one_error_line, run, write_inputs
from tests.wrapped_reference import wrapped_reference

# -- bad UTF-8: the line, in every reader ----------------------------------------------


def _broken_line(path: Path, line: int) -> None:
    lines = path.read_bytes().split(b"\n")
    lines[line - 1] = lines[line - 1].replace(b"e", b"\xff", 1)
    path.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_bad_utf8_in_a_dataset_file_is_reported_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], gz: bool
) -> None:
    inputs = write_inputs(tmp_path)
    corpus = inputs.data / "corpus.jsonl"
    _broken_line(corpus, 3)
    if gz:
        corpus.with_suffix(".jsonl.gz").write_bytes(gzip.compress(corpus.read_bytes()))
        corpus.unlink()
    code, _, err = run(by_name("eval").argv(inputs, tmp_path / "out"), capsys)
    assert code == 2
    name = "corpus.jsonl.gz" if gz else "corpus.jsonl"
    assert one_error_line(err, "eval").endswith(f"{name} line 3: not UTF-8 text")


def test_bad_utf8_in_a_grid_is_reported_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = write_inputs(tmp_path)
    inputs.grid.write_bytes(b'depth = 3\nname = "caf\xe9"\n')
    code, _, err = run(by_name("eval").argv(inputs, tmp_path / "out"), capsys)
    assert code == 2
    assert one_error_line(err, "eval").endswith(f"{inputs.grid} line 2: not UTF-8 text")


def test_bad_utf8_in_a_stored_case_is_reported_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = tmp_path / "case.json"
    case.write_bytes(b'{"id": "ISO-001",\n "counterexample": "\xff"}\n')
    code, _, err = run(["conform", "--replay", str(case)], capsys)
    assert code == 2
    assert f"--replay {case} line 2: not JSON (not UTF-8 text)" in one_error_line(err, "conform")


# -- control characters of names --------------------------------------------------------

HOSTILE = "acme\x1b[2J\x07\u202e\x9b31m\nforged: line"


def _no_controls(text: str) -> bool:
    return not any(unicodedata.category(c) == "Cc" and c != "\n" for c in text) and not any(
        c in text for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    )


def test_a_counterexample_prints_names_with_their_control_characters_escaped() -> None:
    doc = {"tenant": HOSTILE, "doc_id": "d\x1b1", "text": "x\x9by", "barrier": "b\x07"}
    asker = {"user_id": "u\x00", "tenant": HOSTILE, "max_classification": "internal"}
    case = {"docs": [doc], "asker": asker, "query": "q\x1b"}
    verdict = Verdict("ISO-001", "isolation", "t", "fail", 1, f"leak to {HOSTILE}", case)
    shown = format_counterexample(verdict)
    assert _no_controls(shown)
    assert "acme\\x1b[2J\\x07\\u202e\\x9b31m\\x0aforged: line/d\\x1b1" in shown
    assert len(shown.splitlines()) == len(format_counterexample(_plain(verdict)).splitlines())


def _plain(verdict: Verdict) -> Verdict:
    case = {
        "docs": [{"tenant": "t", "doc_id": "d", "text": "x", "barrier": "b"}],
        "asker": {"user_id": "u", "tenant": "t", "max_classification": "internal"},
        "query": "q",
    }
    return Verdict(verdict.id, verdict.level, verdict.title, "fail", 1, "leak", case)


@pytest.mark.parametrize("command", ["eval", "gate", "metrics", "conform"])
def test_an_error_line_never_carries_control_characters(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    inputs = write_inputs(tmp_path)
    break_work(monkeypatch, by_name(command), InputError(f"no document in tenant {HOSTILE}"))
    code, _, err = run(by_name(command).argv(inputs, None), capsys)
    assert code == 2
    line = one_error_line(err, command)
    assert _no_controls(line)
    assert line.endswith("tenant acme\\x1b[2J\\x07\\u202e\\x9b31m")  # the first line only
    assert "forged" not in line


# -- the replay line has the run's call time limit ---------------------------------------

BROKEN = wrapped_reference("broken", 'raise RuntimeError("boom")')


@pytest.mark.parametrize("json_report", [False, True], ids=["select", "replay"])
def test_the_replay_line_keeps_the_call_time_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], json_report: bool
) -> None:
    module = tmp_path / f"broken_{json_report}.py"
    module.write_text(BROKEN, encoding="utf-8")
    report = ["--json", str(tmp_path / "c.json")] if json_report else []
    argv = ["conform", "--impl", f"{module}:broken", "--select", "ISO-001"]
    code, out, _ = run([*argv, "--call-timeout", "7.5", *report], capsys)
    assert code == 1
    (replay,) = [line.strip() for line in out.splitlines() if line.strip().startswith("replay:")]
    assert f"--impl {module}:broken --call-timeout 7.5 " in replay


# -- metrics: an overflowing score is infinity, as inf is ---------------------------------


def test_metrics_reads_1e400_as_it_reads_inf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\n", encoding="utf-8")
    outputs = []
    for score in ("inf", "1e400", "Infinity"):
        run_file = tmp_path / "run"
        run_file.write_text(f"q1 Q0 d2 1 {score} t\nq1 Q0 d1 2 5.0 t\n", encoding="utf-8")
        code, out, err = run(["metrics", "-q", str(qrels), str(run_file)], capsys)
        assert code == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1] == outputs[2]


# -- a key naming no document ---------------------------------------------------------


@pytest.mark.parametrize(("tenant", "doc_id"), [(None, None), ("t", None), (1, "d"), ("t", b"d")])
def test_delete_and_version_of_refuse_a_key_that_is_not_two_strings(
    tenant: object, doc_id: object
) -> None:
    retriever = AuthorizedRetriever()
    with pytest.raises(InvalidArgument, match="delete expects"):
        retriever.delete(tenant, doc_id)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="version_of expects"):
        retriever.version_of(tenant, doc_id)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="delete expects"):
        reference_factory().delete(tenant, doc_id)  # type: ignore[arg-type]


def test_deleting_an_absent_document_is_still_no_error() -> None:
    assert AuthorizedRetriever().delete("t", "nothing") is False
