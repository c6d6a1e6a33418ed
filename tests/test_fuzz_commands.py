"""The command line fuzzed: every command fed mutated versions of valid inputs (issue 30).

Each command of :mod:`tests.commands` gets its small valid inputs with one file changed
by a drawn :class:`~tests.fuzz_inputs.Mutation` (a dataset file, a grid, a qrels or run
file, a results report, a stored counterexample), and ``conform --external`` gets a peer
whose Nth wire answer is mutated. Whatever the input, the command must:

* exit 0, 1 or 2 (never 3, an internal error, nor a crash);
* say a failure (1 or 2) in at most one line on stderr, with no traceback;
* change no file outside its output (``--out``, ``--summary``, ``--json``).

The short run is the ``ci`` hypothesis profile (a few dozen inputs per command, part of
every test run); the long one is on demand::

    RAGWARD_HYPOTHESIS_PROFILE=thorough pytest tests/test_fuzz_commands.py -p no:xdist
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
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragward.cli import main
from tests.commands import Inputs, snapshot, write_inputs
from tests.fuzz_inputs import Mutation, apply, mutations

#: Inputs per command: a third of the profile's examples (20 in ``ci``, 333 ``thorough``).
EXAMPLES = max(10, (settings.default.max_examples if settings.default else 60) // 3)
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: A stored counterexample (conform --replay): ISO-002 on a case the reference passes.
STORED_CASE = {
    "id": "ISO-002",
    "verdict": "fail",
    "counterexample": {
        "asker": {"barriers": [], "max_classification": "internal", "tenant": "acme",
                  "user_id": "u1"},
        "docs": [
            {"barrier": None, "classification": "internal", "doc_id": "d1", "tenant": "acme",
             "text": "payment ledger held", "title": "Notes", "updated_tick": 3, "version": 1},
            {"barrier": None, "classification": "internal", "doc_id": "d1",
             "tenant": "globex", "text": "payment wire", "title": "", "updated_tick": 0,
             "version": 2},
        ],
        "now_tick": 5,
        "policy": {"candidate_limit": 5, "limit_unit": "chunks", "max_stale_ticks": 4,
                   "mode": "hybrid", "rerank": False, "rerank_min_score": 0.0,
                   "result_limit": 3, "rrf_k": 60},
        "query": "payment",
    },
}  # fmt: skip


def _eval(i: Inputs, out: Path) -> list[str]:
    data = ["--dataset", str(i.data), "--grid", str(i.grid)]
    return ["eval", *data, "--out", str(out), "--quiet"]


def _tune(i: Inputs, out: Path) -> list[str]:
    data = ["--dataset", str(i.data), "--grid", str(i.grid)]
    return ["tune", *data, "--out", str(out), "--quiet"]


def _gate(i: Inputs, out: Path) -> list[str]:
    reports = ["--baseline", str(i.baseline), "--current", str(i.current)]
    return ["gate", *reports, "--trials", "50", "--summary", str(out / "gate.md")]


def _metrics(i: Inputs, out: Path) -> list[str]:
    return ["metrics", str(i.qrels), str(i.run)]


def _replay(i: Inputs, out: Path) -> list[str]:
    return ["conform", "--replay", str(i.root / "case.json")]


# (command, argv, the inputs it reads that a mutation may change)
TARGETS: list[tuple[str, Callable[[Inputs, Path], list[str]], tuple[str, ...]]] = [
    (
        "eval",
        _eval,
        ("data/corpus.jsonl", "data/queries.jsonl", "data/qrels/test.tsv",
         "data/claims.jsonl", "grid.toml"),
    ),
    ("tune", _tune, ("data/qrels/train.tsv", "data/queries.jsonl", "grid.toml")),
    ("gate", _gate, ("baseline/results.json", "current/results.json")),
    ("metrics", _metrics, ("qrels.txt", "run.txt")),
    ("conform", _replay, ("case.json",)),
]  # fmt: skip


@contextlib.contextmanager
def _inputs() -> Iterator[Inputs]:
    with tempfile.TemporaryDirectory() as folder:
        inputs = write_inputs(Path(folder) / "in")
        (inputs.root / "case.json").write_text(json.dumps(STORED_CASE), encoding="utf-8")
        yield inputs


def _run(argv: list[str], cwd: Path) -> tuple[int, str]:
    """``ragward ARGV`` in this process, from ``cwd``: its exit code and stderr."""
    err = io.StringIO()
    before = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(before)
    return code, err.getvalue()


def _holds(command: str, code: int, err: str) -> None:
    assert code in (0, 1, 2), f"exit {code}: {err[-2000:]}"
    assert "Traceback" not in err, err[-2000:]
    if code in (1, 2):
        lines = err.splitlines()
        assert len(lines) <= 1, err[-2000:]
        assert all(len(line) < 3000 for line in lines)


@pytest.fixture(autouse=True)
def _no_model_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    # A grid mutated to name a model embedder must not write the user's cache folder.
    monkeypatch.setenv("RAGWARD_CACHE", "off")


@pytest.mark.parametrize(("command", "argv", "files"), [pytest.param(*t, id=t[0]) for t in TARGETS])
@FUZZ
@given(data=st.data())
def test_a_mutated_input_gives_0_1_or_2_one_line_and_writes_only_its_output(
    command: str,
    argv: Callable[[Inputs, Path], list[str]],
    files: tuple[str, ...],
    data: st.DataObject,
) -> None:
    target = data.draw(st.sampled_from(files), label="file")
    mutation = data.draw(mutations(), label="mutation")
    with _inputs() as inputs:
        path = inputs.root / target
        path.write_bytes(apply(path.read_bytes(), mutation))
        out = inputs.root.parent / "out"
        outside = inputs.root.parent
        before = {k: v for k, v in snapshot(outside).items() if not k.startswith("out")}
        code, err = _run(argv(inputs, out), inputs.root.parent)
        _holds(command, code, err)
        after = {k: v for k, v in snapshot(outside).items() if not k.startswith("out")}
        assert after == before, f"{command} changed files outside its output"


#: A wire peer serving the reference whose answer number N (from 1) is mutated.
PEER = """\
import json, sys
from ragward.engines.reference import reference_factory
from ragward.conformance.wire_server import serve
sys.path.insert(0, sys.argv[1])
from tests.fuzz_inputs import Mutation, apply

spec = json.loads(sys.argv[2])
mutation = Mutation(spec["kind"], spec["where"], spec["payload"])

class Sink:
    def __init__(self):
        self.count = 0

    def write(self, text):
        self.count += 1
        if self.count == spec["n"]:
            line = apply(text.rstrip("\\n").encode(), mutation).replace(b"\\n", b" ")
            sys.stdout.buffer.write(line + b"\\n")
        else:
            sys.stdout.write(text)

    def flush(self):
        sys.stdout.flush()

serve(reference_factory, stdout=Sink())
"""


@pytest.mark.slow
@settings(FUZZ, max_examples=max(5, EXAMPLES // 3))  # a process and a peer each
@given(mutation=mutations(), n=st.integers(min_value=1, max_value=40))
def test_a_peers_mutated_answer_gives_0_1_or_2_in_one_line(mutation: Mutation, n: int) -> None:
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as folder:
        peer = Path(folder) / "peer.py"
        peer.write_text(PEER, encoding="utf-8")
        payload = (
            mutation.payload if not isinstance(mutation.payload, tuple) else list(mutation.payload)
        )
        spec = json.dumps({"kind": mutation.kind, "where": mutation.where,
                           "payload": payload, "n": n})  # fmt: skip
        command = shlex.join([sys.executable, str(peer), str(root), spec])
        before = snapshot(Path(folder))
        # A process: the kit's own hypothesis run cannot nest in this test's.
        done = subprocess.run(
            [sys.executable, "-m", "ragward", "conform", "--external", command,
             "--select", "ISO-001", "--call-timeout", "10"],
            capture_output=True, text=True, cwd=folder, timeout=300,
        )  # fmt: skip
        _holds("conform", done.returncode, done.stderr)  # 1: the invariant's line; 2: the error
        assert snapshot(Path(folder)) == before
