"""The bad input catalogue: bad paths and bad files given to every command.

Each row names a command, which of its inputs is bad and how; every row must give the
documented exit code (2), one line on stderr starting ``ragward <command>: error:``, no
traceback, nothing on stdout, and nothing written anywhere under the test's folder.
"""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.commands import Inputs, one_error_line, run, snapshot, write_inputs

#: How to make a bad path at ``path``: each writes (or leaves out) something there.
MAKERS: dict[str, Callable[[Path], object]] = {
    "missing": lambda path: None,
    "a-directory": lambda path: path.mkdir(parents=True),
    "empty": lambda path: path.write_bytes(b""),
    "binary": lambda path: path.write_bytes(b"\xff\xfe\x00\x81garbage\n"),
    "not-gzip": lambda path: path.write_bytes(b"plain text, not gzip\n"),
    "truncated-gzip": lambda path: path.write_bytes(gzip.compress(b'{"_id": "x"}\n' * 50)[:30]),
    "not-json": lambda path: path.write_text("{not json\n", encoding="utf-8"),
    "json-array": lambda path: path.write_text("[1, 2]\n", encoding="utf-8"),
}


def _under_a_file(path: Path) -> Path:
    """``path`` moved under a regular file (made here)."""
    blocker = path.parent / "a-regular-file"
    blocker.write_text("x", encoding="utf-8")
    return blocker / path.name


# (command, input, bad kinds, argv on the inputs with the bad path)
Row = tuple[str, str, tuple[str, ...], Callable[[Inputs, Path], list[str]]]


def _eval_on(data: Callable[[Inputs, Path], Path]) -> Callable[[Inputs, Path], list[str]]:
    def argv(i: Inputs, bad: Path) -> list[str]:
        dataset = data(i, bad)
        return [
            "eval",
            "--dataset",
            str(dataset),
            "--grid",
            str(i.grid),
            "--out",
            str(i.root / "o"),
        ]

    return argv


def _member(name: str) -> Callable[[Inputs, Path], Path]:
    """The dataset with its file ``name`` replaced by the bad path's content (or absence)."""

    def data(i: Inputs, bad: Path) -> Path:
        target = i.data / name
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)
        if bad.is_dir():
            shutil.copytree(bad, target)
        elif bad.exists():
            shutil.copyfile(bad, target)
        return i.data

    return data


FILE_KINDS = ("missing", "a-directory", "under-a-file", "binary")
JSON_KINDS = (*FILE_KINDS, "empty", "not-json", "json-array")

ROWS: list[Row] = [
    # eval and tune: the dataset directory, its files, the grid, a claims file
    ("eval", "--dataset", ("missing", "under-a-file", "empty", "binary"), _eval_on(lambda i, b: b)),
    ("eval", "--dataset (empty folder)", ("a-directory",), _eval_on(lambda i, b: b)),
    (
        "eval",
        "corpus.jsonl",
        ("missing", "a-directory", "empty", "binary", "not-json"),
        _eval_on(_member("corpus.jsonl")),
    ),
    (
        "eval",
        "corpus.jsonl.gz",
        ("not-gzip", "truncated-gzip"),
        _eval_on(_member("corpus.jsonl.gz")),
    ),
    (
        "eval",
        "queries.jsonl",
        ("missing", "a-directory", "empty", "binary", "json-array"),
        _eval_on(_member("queries.jsonl")),
    ),
    (
        "eval",
        "qrels/test.tsv",
        ("a-directory", "binary", "empty"),
        _eval_on(_member("qrels/test.tsv")),
    ),
    ("eval", "qrels/", ("missing",), _eval_on(_member("qrels"))),
    (
        "eval",
        "claims.jsonl",
        ("a-directory", "binary", "not-json", "json-array"),
        _eval_on(_member("claims.jsonl")),
    ),
    (
        "eval",
        "--grid",
        (*FILE_KINDS, "not-json"),
        lambda i, b: [
            "eval",
            "--dataset",
            str(i.data),
            "--grid",
            str(b),
            "--out",
            str(i.root / "o"),
        ],
    ),
    (
        "eval",
        "--claims",
        (*FILE_KINDS, "not-json", "json-array"),
        lambda i, b: [
            "eval",
            "--dataset",
            str(i.data),
            "--grid",
            str(i.grid),
            "--claims",
            f"test={b}",
            "--out",
            str(i.root / "o"),
        ],
    ),
    (
        "eval",
        "--impl FILE.py",
        ("missing", "a-directory", "under-a-file"),
        lambda i, b: [
            "eval",
            "--dataset",
            str(i.data),
            "--impl",
            f"{b}:factory",
            "--out",
            str(i.root / "o"),
        ],
    ),
    (
        "eval",
        "--cache",
        ("under-a-file", "binary"),
        lambda i, b: [
            "eval",
            "--dataset",
            str(i.data),
            "--grid",
            str(i.grid),
            "--cache",
            str(b),
            "--out",
            str(i.root / "o"),
        ],
    ),
    (
        "tune",
        "--dataset",
        ("missing", "a-directory", "under-a-file", "binary"),
        lambda i, b: [
            "tune",
            "--dataset",
            str(b),
            "--grid",
            str(i.grid),
            "--out",
            str(i.root / "o"),
        ],
    ),
    (
        "tune",
        "--grid",
        (*FILE_KINDS, "not-json"),
        lambda i, b: [
            "tune",
            "--dataset",
            str(i.data),
            "--grid",
            str(b),
            "--out",
            str(i.root / "o"),
        ],
    ),
    # gate: both results, the conformance report
    (
        "gate",
        "--baseline",
        JSON_KINDS,
        lambda i, b: [
            "gate",
            "--baseline",
            str(b),
            "--current",
            str(i.current),
            "--summary",
            str(i.root / "g.md"),
        ],
    ),
    (
        "gate",
        "--current",
        JSON_KINDS,
        lambda i, b: [
            "gate",
            "--baseline",
            str(i.baseline),
            "--current",
            str(b),
            "--summary",
            str(i.root / "g.md"),
        ],
    ),
    (
        "gate",
        "--conformance",
        JSON_KINDS,
        lambda i, b: [
            "gate",
            "--baseline",
            str(i.baseline),
            "--current",
            str(i.current),
            "--conformance",
            str(b),
        ],
    ),
    # metrics: the qrels and the run
    (
        "metrics",
        "QRELS",
        (*FILE_KINDS, "empty", "json-array"),
        lambda i, b: ["metrics", str(b), str(i.run)],
    ),
    (
        "metrics",
        "RUN",
        (*FILE_KINDS, "empty", "json-array"),
        lambda i, b: ["metrics", str(i.qrels), str(b)],
    ),
    (
        "metrics",
        "QRELS.gz",
        ("not-gzip", "truncated-gzip"),
        lambda i, b: ["metrics", str(b), str(i.run)],
    ),
    # conform: a stored case, an adapter file
    ("conform", "--replay", JSON_KINDS, lambda i, b: ["conform", "--replay", str(b)]),
    (
        "conform",
        "--impl FILE.py",
        ("missing", "a-directory", "under-a-file"),
        lambda i, b: ["conform", "--impl", f"{b}:factory"],
    ),
    # engines and bench: their output folder (their only path)
    (
        "engines",
        "--out",
        ("under-a-file", "binary"),
        lambda i, b: ["engines", "--matrix", "--only", "reference", "--out", str(b)],
    ),
    (
        "bench",
        "--out",
        ("under-a-file", "binary"),
        lambda i, b: ["bench", "--chunks", "20", "--out", str(b)],
    ),
]

SUFFIX = {"corpus.jsonl.gz": ".gz", "QRELS.gz": ".gz", "--impl FILE.py": ".py"}

CASES = [
    pytest.param(command, what, kind, argv, id=f"{command}-{what}-{kind}".replace(" ", "_"))
    for command, what, kinds, argv in ROWS
    for kind in kinds
]


def _bad_path(folder: Path, what: str, kind: str) -> Path:
    folder.mkdir()
    path = folder / f"bad{SUFFIX.get(what, '.txt')}"
    if kind == "under-a-file":
        return _under_a_file(path)
    MAKERS[kind](path)
    return path


@pytest.mark.parametrize(("command", "what", "kind", "argv"), CASES)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    what: str,
    kind: str,
    argv: Callable[[Inputs, Path], list[str]],
) -> None:
    monkeypatch.chdir(tmp_path)  # a default output would land here, and be seen
    inputs = write_inputs(tmp_path / "in")
    bad = _bad_path(tmp_path / "bad", what, kind)
    arguments = argv(inputs, bad)
    before = snapshot(tmp_path)
    code, stdout, err = run(arguments, capsys)
    assert code == 2, err
    one_error_line(err, command)
    assert stdout == ""
    assert snapshot(tmp_path) == before


def test_the_catalogue_covers_every_command_with_inputs() -> None:
    from tests.commands import COMMANDS

    covered = {row[0] for row in ROWS}
    assert covered == {c.name for c in COMMANDS} - {"demo"}  # demo reads nothing
    assert json.loads(json.dumps(sorted(covered)))  # the table is plain data
