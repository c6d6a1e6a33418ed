"""Every ``ragward`` command, runnable in a test: small inputs, its output options, and
the function each calls to do its work (to interrupt or break it there).

The tests of output paths, exit codes, interrupts and the bad input catalogue share this
table, so a new command (or a new output option) is one row here, not a row in four files.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from ragward.cli import main
from tests.evals.dataset_files import write_dataset, write_lines
from tests.evals.gate_inputs import results, write_results
from tests.evals.grids import grid_toml

#: One index, two settings: an eval of the small dataset takes a few hundredths of a second.
TINY_GRID = grid_toml(
    depth=3,
    measures=["ndcg_cut_3", "recall_3"],
    mode=["hybrid", "lexical"],
    rrf_k=[60],
    rerank=[False],
    candidate_limit=[5],
    min_overlap=[0.6],
)


@dataclass(frozen=True)
class Inputs:
    """Valid inputs for every command, written under one folder."""

    root: Path
    data: Path
    grid: Path
    baseline: Path
    current: Path
    qrels: Path
    run: Path


def write_inputs(root: Path) -> Inputs:
    """A dataset (with a train split for ``tune``), a grid, two eval results, TREC files."""
    data = write_dataset(root / "data", files={"qrels/train.tsv": ["q1\td1\t2", "q3\td3\t1"]})
    grid = root / "grid.toml"
    grid.write_text(TINY_GRID, encoding="utf-8")
    per_query = {"ndcg_cut_10": {f"q{i}": 0.5 for i in range(20)}}
    reports = [
        write_results(root / name, results({"s1": per_query})) for name in ("baseline", "current")
    ]
    qrels = write_lines(root / "qrels.txt", ["q1 0 d1 1", "q2 0 d2 1"])
    run = write_lines(root / "run.txt", ["q1 Q0 d1 1 2.0 t", "q2 Q0 d3 1 1.0 t"])
    return Inputs(root, data, grid, reports[0], reports[1], qrels, run)


def first_invariant() -> str:
    """An invariant id to ``--select`` (the check of ``--json`` comes before it runs)."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance.invariant import REGISTRY

    return sorted(i for i in REGISTRY if not i.startswith("ZZ-"))[0]


@dataclass(frozen=True)
class Command:
    """One command: its argv on ``Inputs`` with an output path, and where it works."""

    name: str
    argv: Callable[[Inputs, Path | None], list[str]]
    work: str  # "module:attribute" called once the inputs and outputs are checked
    output: str | None = None  # the output option, if any
    kind: str = "dir"  # what the output option names: "dir" or "file"
    marker: str | None = None  # the file a replaceable report directory holds


def _eval(i: Inputs, out: Path | None) -> list[str]:
    argv = ["eval", "--dataset", str(i.data), "--grid", str(i.grid), "--quiet"]
    return [*argv, "--out", str(out if out is not None else i.root / "eval-out")]


def _tune(i: Inputs, out: Path | None) -> list[str]:
    argv = ["tune", "--dataset", str(i.data), "--grid", str(i.grid), "--quiet"]
    return [*argv, "--out", str(out if out is not None else i.root / "tune-out")]


def _gate(i: Inputs, out: Path | None) -> list[str]:
    argv = ["gate", "--baseline", str(i.baseline), "--current", str(i.current)]
    return [*argv, "--trials", "50", *(["--summary", str(out)] if out is not None else [])]


def _metrics(i: Inputs, out: Path | None) -> list[str]:
    return ["metrics", str(i.qrels), str(i.run)]


def _conform(i: Inputs, out: Path | None) -> list[str]:
    argv = ["conform", "--select", first_invariant()]
    return [*argv, *(["--json", str(out)] if out is not None else [])]


def _engines(i: Inputs, out: Path | None) -> list[str]:
    argv = ["engines", "--matrix", "--only", "reference"]
    return [*argv, "--out", str(out if out is not None else i.root / "engines-out")]


def _bench(i: Inputs, out: Path | None) -> list[str]:
    argv = ["bench", "--chunks", "20", "--queries", "1", "--quiet"]
    return [*argv, "--out", str(out if out is not None else i.root / "bench-out")]


def _demo(i: Inputs, out: Path | None) -> list[str]:
    return ["demo"]


COMMANDS = [
    Command("eval", _eval, "ragward.evals.runner:run_grid", "--out", "dir", "results.json"),
    Command("tune", _tune, "ragward.evals.runner:run_grid", "--out", "dir", "tune.json"),
    Command("gate", _gate, "ragward.evals.gate:compare", "--summary", "file"),
    Command("metrics", _metrics, "ragward.cli.metrics:evaluate_scores"),
    Command("conform", _conform, "ragward.cli.conform:_run", "--json", "file"),
    Command("engines", _engines, "ragward.engines.matrix:write_matrix", "--out", "dir"),
    Command("bench", _bench, "ragward.bench.system:run_system_bench", "--out", "dir"),
    Command("demo", _demo, "ragward.demo:run_demo"),
]
WRITERS = [c for c in COMMANDS if c.output is not None]


def by_name(name: str) -> Command:
    return next(c for c in COMMANDS if c.name == name)


def break_work(monkeypatch: pytest.MonkeyPatch, command: Command, error: BaseException) -> None:
    """Make ``command``'s work raise ``error`` (a crash, Ctrl-C...) when it starts."""

    def broken(*args: object, **kwargs: object) -> object:
        raise error

    module, _, attribute = command.work.partition(":")
    monkeypatch.setattr(f"{module}.{attribute}", broken)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``ragward ARGV``: its exit code, stdout and stderr."""
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under ``root``, hidden ones included."""
    out: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        for name in dirs:
            out[(base / name).relative_to(root).as_posix()] = None
        for name in files:
            out[(base / name).relative_to(root).as_posix()] = (base / name).read_bytes()
    return out


def one_error_line(err: str, command: str, kind: str = "error") -> str:
    """The single stderr line of a failed command, checked for its form; its text."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    prefix = f"ragward {command}: {kind}"
    assert lines[0].startswith(prefix), err
    return lines[0]


def unwritable_directory(tmp_path: Path) -> Path:
    """A directory this process cannot create anything in, even as root (where chmod does
    not stop writes): ``/proc`` then; a read-only folder otherwise."""
    if os.geteuid() == 0:
        return Path("/proc")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    return folder
