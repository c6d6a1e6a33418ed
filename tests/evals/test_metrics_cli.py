"""``ragward metrics``: trec_eval's output format, ``-q``, ``-c``, and one-line input errors.

Also the TREC readers and writers the command stands on (:mod:`ragward.evals.trec`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ragward.cli import main as ragward_main
from ragward.cli.metrics import main
from ragward.errors import InputError, InvalidArgument
from ragward.evals.trec import rank_run, read_qrels, read_run, write_run

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 x 1\nq3 0 z 1\n"
# q1 ties a and b at 3.0: trec_eval ranks b (the greater id) first, so q1 is b, a, c
RUN = "q1 Q0 a 1 3.0 tagA\nq1 Q0 b 2 3.0 tagA\nq1 Q0 c 3 1 tagA\nq2 Q0 y 1 1 tagB\nq9 Q0 y 1 1 t\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels.txt").write_text(QRELS, encoding="utf-8")
    (tmp_path / "run.txt").write_text(RUN, encoding="utf-8")
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_per_query_then_all_in_trec_eval_order(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, *files, "-q", "-m", "P_2", "-m", "map", "-m", "num_ret")
    # q1: relevant a at rank 2 and c at rank 3: map = (1/2 + 2/3) / 2; q2 finds nothing
    assert (code, err) == (0, "")
    assert out == (
        "num_ret               \tq1\t3\n"
        "map                   \tq1\t0.5833\n"
        "P_2                   \tq1\t0.5000\n"
        "num_ret               \tq2\t1\n"
        "map                   \tq2\t0.0000\n"
        "P_2                   \tq2\t0.0000\n"
        "num_ret               \tall\t4\n"
        "map                   \tall\t0.2917\n"
        "P_2                   \tall\t0.2500\n"
    )


def test_complete_counts_judged_queries_missing_from_the_run(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["-m", "num_q", "-m", "num_rel", "-m", "map", "-m", "P_2", "-m", "runid"]
    code, out, _ = run_cli(capsys, *files, "-c", *names)
    assert code == 0
    assert out == (  # q3 joins with an empty ranking: the means are over 3 queries
        "runid                 \tall\tt\n"  # the last line's tag, as trec_eval reports it
        "num_q                 \tall\t3\n"
        "num_rel               \tall\t4\n"
        "map                   \tall\t0.1944\n"  # (7/12 + 0 + 0) / 3
        "P_2                   \tall\t0.1667\n"
    )


def test_default_measures_and_digits(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, *files, "--digits", "6")
    names = [line.split("\t")[0].rstrip() for line in out.splitlines()]
    cuts = ["P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000"]
    base = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "recip_rank"]
    assert (code, names) == (0, base + cuts)
    assert "recip_rank            \tall\t0.250000\n" in out


def test_the_ragward_command_runs_it(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert ragward_main(["metrics", *files, "-m", "P_2"]) == 0
    assert capsys.readouterr().out == "P_2                   \tall\t0.2500\n"
    assert ragward_main(["metrics", files[0], "missing.txt"]) == 2
    assert capsys.readouterr().err.startswith("ragward metrics: error: missing.txt: cannot read")


BAD_INPUTS = [  # (file, content, what the one line must say)
    ("run", "q1 Q0 a 1 1 t\nq1 Q0 b 2 1\n", "run.txt line 2: expected 6 whitespace-separated"),
    ("run", "q1 Q0 a 1 1 t extra\n", "run.txt line 1: expected 6 whitespace-separated"),
    ("run", "# c\nq1 Q0 a 1 abc t\n", "run.txt line 2: field 'score': not a number 'abc'"),
    ("run", "q1 Q0 a 1 nan t\n", "run.txt line 1: field 'score': not a number 'nan'"),
    ("run", "q1 Q0 a 1 1 t\nq1 Q0 a 2 0 t\n", "run.txt line 2: field 'docno': 'a' retrieved twice"),
    ("run", "q1 Q0 \xff 1 1 t\n", "run.txt line 1: not UTF-8 text"),
    ("qrels", "q1 0 a 1\nq1 0 b\n", "qrels.txt line 2: expected 4 whitespace-separated"),
    ("qrels", "q1 0 a 1\n\nq1 0 b 1.5\n", "qrels.txt line 3: field 'rel': not an integer '1.5'"),
    ("qrels", "q1 0 a 1\nq1 0 a 0\n", "qrels.txt line 2: field 'docno': 'a' judged twice"),
    # float() and int() read these; the TREC grammar does not (ASCII and non-ASCII files)
    ("run", "q1 Q0 a 1 1_0 t\n", "run.txt line 1: field 'score': not a number '1_0'"),
    ("run", "q1 Q0 \u00e9 1 1_0 t\n", "run.txt line 1: field 'score': not a number '1_0'"),
    ("run", "q1 Q0 a 1 \u0661 t\n", "run.txt line 1: field 'score': not a number '\u0661'"),
    ("run", "q1 Q0 a 1 -NaN t\n", "run.txt line 1: field 'score': not a number '-NaN'"),
    ("qrels", "q1 0 a 1_0\n", "qrels.txt line 1: field 'rel': not an integer '1_0'"),
    ("qrels", "q1 0 a \u0661\n", "qrels.txt line 1: field 'rel': not an integer '\u0661'"),
    # the first line is named, whether the query's lines are together or not
    (
        "run",
        "q1 Q0 a 1 1 t\nq2 Q0 a 1 1 t\nq1 Q0 a 2 0 t\n",
        "retrieved twice for query 'q1' (first on line 1)",
    ),
    ("run", "# c\nq1 Q0 a 1 1 t\n# q1 Q0 a 1 1 t\nq1 Q0 a 2 0 t\n", "(first on line 2)"),
]


@pytest.mark.parametrize(("which", "content", "message"), BAD_INPUTS)
def test_bad_files_give_one_line_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str, content: str, message: str
) -> None:
    files = {"qrels": tmp_path / "qrels.txt", "run": tmp_path / "run.txt"}
    files["qrels"].write_text(QRELS, encoding="utf-8")
    files["run"].write_text(RUN, encoding="utf-8")
    files[which].write_bytes(content.encode("latin-1" if "\xff" in content else "utf-8"))
    code, out, err = run_cli(capsys, str(files["qrels"]), str(files["run"]))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("ragward metrics: error: ")
    assert message in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.txt", "{run}"], "missing.txt: cannot read (No such file or directory)"),
        (["{qrels}", "{qrels}"], "expected 6 whitespace-separated columns"),
        (["{qrels}", "{other}"], "nothing to score (-c scores every judged query)"),
        (["{qrels}", "{run}", "-m", "ndcg_5"], "did you mean 'ndcg_cut_5'"),
        (["{qrels}", "{run}", "--digits", "99"], "--digits must be between 0 and 17"),
    ],
)
def test_other_errors_are_one_line(
    files: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    (tmp_path / "other.txt").write_text("zz Q0 a 1 1 t\n", encoding="utf-8")
    paths = {"qrels": files[0], "run": files[1], "other": str(tmp_path / "other.txt")}
    code, out, err = run_cli(capsys, *(a.format(**paths) for a in argv))
    assert (code, out, err.count("\n")) == (2, "", 1)
    assert message in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["only-one-file"]) == 2
    assert "usage: ragward metrics" in capsys.readouterr().err


def test_readers_skip_comments_and_blank_lines_and_accept_crlf(tmp_path: Path) -> None:
    (tmp_path / "q").write_bytes(b"# judged by hand\r\nq1\t0  a 2\r\n\r\nq1 0 b -1\r\n")
    (tmp_path / "r").write_bytes(b"q1 Q0 a 9 -1.5e0 x\r\n\nq1 Q0 b 1 +inf last\n")
    assert read_qrels(tmp_path / "q") == {"q1": {"a": 2, "b": -1}}
    run = read_run(tmp_path / "r")
    assert run.tag == "last"  # trec_eval's runid: the last line's tag
    assert rank_run(run.scores) == {"q1": ("b", "a")}  # the file's rank column is ignored


def test_ranked_lists_survive_a_written_run(tmp_path: Path) -> None:
    rankings = {"q1": ("b", "a", "c"), "q2": ("z",)}
    write_run(tmp_path / "run.txt", rankings, tag="mine")
    run = read_run(tmp_path / "run.txt")
    assert (rank_run(run.scores), run.tag) == (rankings, "mine")
    assert (tmp_path / "run.txt").read_text(encoding="utf-8").splitlines()[0] == "q1 Q0 b 1 2 mine"


@pytest.mark.parametrize("rankings", [{"q": ["a", "a"]}, {"q": ["a b"]}, {"#q": ["a"]}])
def test_write_run_refuses_what_trec_eval_would_misread(
    tmp_path: Path, rankings: dict[str, list[str]]
) -> None:
    with pytest.raises(InvalidArgument):
        write_run(tmp_path / "run.txt", rankings)


def test_fields_split_where_c_isspace_splits(tmp_path: Path) -> None:
    # U+00A0 and U+2003 are spaces to str.split, \x1c-\x1f too; to trec_eval (C isspace on
    # bytes) they are part of a field. An ASCII file without them is split as text.
    ids = ["a\u00a0b", "c\u2003d", "e\x1cf", "g\x1fh"]
    for doc in ids:
        run = tmp_path / "run.txt"
        run.write_text(f"q1 Q0 {doc} 1 2.5 t\r\nq1\tQ0 plain 2 -inf t\x0b\n", encoding="utf-8")
        assert read_run(run).scores == {"q1": {doc: 2.5, "plain": float("-inf")}}
        qrels = tmp_path / "qrels.txt"
        qrels.write_text(f"q1 0 {doc} +1\fq1 0 plain -1\n", encoding="utf-8")
        with pytest.raises(InputError, match="expected 4"):
            read_qrels(qrels)  # \f is C whitespace, not a line break: 8 fields on one line
        qrels.write_text(f"q1 0 {doc} +1\nq1 0 plain -1\n", encoding="utf-8")
        assert read_qrels(qrels) == {"q1": {doc: 1, "plain": -1}}


def test_ragward_metrics_loads_neither_the_harness_nor_the_kit() -> None:
    # a command run in loops: what it imports is its start-up time
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from ragward.cli import main\n"
            "try:\n    main(['metrics', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('ragward')))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    modules = loaded.stdout.strip().splitlines()[-1]
    for heavy in (
        "ragward.evals.grid",
        "ragward.evals.runner",
        "ragward.conformance",
        "ragward.reference",
    ):
        assert f"'{heavy}'" not in modules, heavy
    assert "'ragward.cli.metrics'" in modules
