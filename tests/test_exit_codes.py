"""Exit codes mean one thing in every command (the table in ``ragward.exits``).

0 success, 1 a verdict, 2 bad input or usage, 3 an internal or environment failure (one
line, the traceback only with ``RAGWARD_DEBUG=1``), 130 Ctrl-C (one line, nothing
half-written). Each is checked per command, with the command's work replaced by one that
raises.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TextIO, cast

import pytest

from ragward.cli import _parser, main
from ragward.cli.bench import parser_of
from ragward.cli.metrics import main as metrics_main
from ragward.exits import DEBUG_ENV
from ragward.streams import GuardedStream, guarded_streams
from tests.commands import (
    COMMANDS,
    TINY_GRID,
    Command,
    break_work,
    by_name,
    one_error_line,
    run,
    snapshot,
    write_inputs,
)
from tests.evals.gate_inputs import results, write_results

NAMES = [pytest.param(c, id=c.name) for c in COMMANDS]


@pytest.mark.parametrize("command", NAMES)
def test_ctrl_c_is_one_line_exit_130_and_writes_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: Command,
) -> None:
    inputs = write_inputs(tmp_path)
    break_work(monkeypatch, command, KeyboardInterrupt())
    before = snapshot(tmp_path)
    code, _, err = run(command.argv(inputs, None), capsys)
    assert code == 130
    assert (
        one_error_line(err, command.name, "interrupted") == f"ragward {command.name}: interrupted"
    )
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("name", ["eval", "tune", "gate"])
def test_ctrl_c_leaves_the_previous_report_intact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    command = by_name(name)
    inputs = write_inputs(tmp_path)
    assert main(command.argv(inputs, None)) == 0  # the previous report
    before = snapshot(tmp_path)
    assert any(key.endswith((".json", ".md")) for key in before)
    break_work(monkeypatch, command, KeyboardInterrupt())
    capsys.readouterr()
    code, _, err = run(command.argv(inputs, None), capsys)
    assert code == 130
    one_error_line(err, name, "interrupted")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("command", NAMES)
def test_an_unexpected_exception_is_one_line_and_exit_3(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: Command,
) -> None:
    inputs = write_inputs(tmp_path)
    monkeypatch.delenv(DEBUG_ENV, raising=False)
    break_work(monkeypatch, command, RuntimeError("disk on fire\nsecond line"))
    before = snapshot(tmp_path)
    code, _, err = run(command.argv(inputs, None), capsys)
    assert code == 3
    line = one_error_line(err, command.name, "internal error")
    assert line == (
        f"ragward {command.name}: internal error: RuntimeError: disk on fire "
        f"(please report it; {DEBUG_ENV}=1 shows the traceback)"
    )
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("command", NAMES)
def test_the_traceback_of_an_internal_error_shows_with_the_debug_variable(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: Command,
) -> None:
    inputs = write_inputs(tmp_path)
    monkeypatch.setenv(DEBUG_ENV, "1")
    break_work(monkeypatch, command, RuntimeError("disk on fire"))
    code, _, err = run(command.argv(inputs, None), capsys)
    assert code == 3
    assert err.startswith("Traceback (most recent call last):")
    assert err.splitlines()[-1].startswith(f"ragward {command.name}: internal error: RuntimeError")


@pytest.mark.parametrize("command", NAMES)
def test_a_usage_error_exits_2(capsys: pytest.CaptureFixture[str], command: Command) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([command.name, "--no-such-option"])
    assert exit_info.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(  # demo reads no input
    "command", [pytest.param(c, id=c.name) for c in COMMANDS if c.name != "demo"]
)
def test_a_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: Command
) -> None:
    """Each command's own kind of bad input (the catalogue has many more)."""
    inputs = write_inputs(tmp_path)
    bad = {
        "eval": ["eval", "--dataset", str(tmp_path / "none")],
        "tune": ["tune", "--dataset", str(tmp_path / "none")],
        "gate": ["gate", "--baseline", str(tmp_path / "none"), "--current", str(inputs.current)],
        "metrics": ["metrics", str(tmp_path / "none"), str(inputs.run)],
        "conform": ["conform", "--select", "NO-SUCH-ID"],
        "engines": ["engines", "--only", "reference"],
        "bench": ["bench", "--out", str(inputs.qrels)],
    }[command.name]
    code, _, err = run(bad, capsys)
    assert code == 2
    one_error_line(err, command.name)


def test_verdicts_exit_1_and_success_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = write_inputs(tmp_path)
    worse = tmp_path / "worse"
    worse.mkdir()
    text = (inputs.baseline / "results.json").read_text(encoding="utf-8")
    (worse / "results.json").write_text(text.replace("0.5", "0.1"), encoding="utf-8")
    gate = ["gate", "--baseline", str(inputs.baseline), "--trials", "200"]
    assert run([*gate, "--current", str(inputs.current)], capsys)[0] == 0
    assert run([*gate, "--current", str(worse)], capsys)[0] == 1
    assert run(["metrics", str(inputs.qrels), str(inputs.run)], capsys)[0] == 0


def test_ragward_metrics_on_its_own_uses_the_same_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = write_inputs(tmp_path)
    assert metrics_main([str(tmp_path / "none"), str(inputs.run)]) == 2
    one_error_line(capsys.readouterr().err, "metrics")
    break_work(monkeypatch, by_name("metrics"), KeyboardInterrupt())
    assert metrics_main([str(inputs.qrels), str(inputs.run)]) == 130
    assert capsys.readouterr().err == "ragward metrics: interrupted\n"


def _actions(parser: argparse.ArgumentParser, path: str) -> list[tuple[str, argparse.Action]]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.extend(_actions(sub, f"{path} {name}"))
        elif not isinstance(action, argparse._HelpAction):
            out.append((path, action))
    return out


def test_every_option_of_every_command_has_help() -> None:
    actions = _actions(_parser(), "ragward") + _actions(parser_of("ragward bench"), "ragward bench")
    missing = [
        f"{path} {'/'.join(action.option_strings) or action.dest}"
        for path, action in actions
        if not action.help or action.help == argparse.SUPPRESS
    ]
    assert missing == []


#: ``ragward eval`` in a child whose run says "started" on stderr, then works for a minute.
#: SIGINT gets Python's usual handler first: a child of a pytest-xdist worker inherits
#: SIGINT ignored, which a shell's child never does.
_SLOW_EVAL = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import ragward.evals.runner as runner
def slow_run_grid(*args, **kwargs):
    print("started", file=sys.stderr, flush=True)
    time.sleep(60)
runner.run_grid = slow_run_grid
from ragward.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_real_ctrl_c_during_an_eval_leaves_the_previous_report(tmp_path: Path) -> None:
    """SIGINT (a real one) to a running ``ragward eval``: exit 130, one line, no
    traceback, and the report directory as it was."""
    import signal
    import subprocess
    import sys

    inputs = write_inputs(tmp_path / "in")
    out = write_results(tmp_path / "report", results({}))  # an earlier report
    before = snapshot(tmp_path)
    argv = ["eval", "--dataset", str(inputs.data), "--grid", str(inputs.grid), "--out", str(out)]
    process = subprocess.Popen(
        [sys.executable, "-c", _SLOW_EVAL, *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    assert process.stderr.readline() == "started\n"
    process.send_signal(signal.SIGINT)
    err = process.communicate(timeout=60)[1]
    assert process.returncode == 130, err
    assert err == "ragward eval: interrupted\n"
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("command", NAMES)
def test_a_broken_pipe_inside_the_work_is_an_internal_error_never_success(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: Command,
) -> None:
    """A BrokenPipeError out of a command is a peer's pipe or socket (the standard streams
    never raise it): exit 3, like any other unexpected failure, not 0."""
    inputs = write_inputs(tmp_path)
    monkeypatch.delenv(DEBUG_ENV, raising=False)
    break_work(monkeypatch, command, BrokenPipeError(32, "Broken pipe"))
    code, _, err = run(command.argv(inputs, None), capsys)
    assert code == 3
    line = one_error_line(err, command.name, "internal error")
    assert "BrokenPipeError: [Errno 32] Broken pipe" in line


def _pipe() -> tuple[int, TextIO]:
    """A pipe's read end, and its write end as a buffered text stream like stdout."""
    read, write = os.pipe()
    return read, open(write, "w", encoding="utf-8")  # closed by the tests


def test_a_stream_whose_reader_left_drops_the_rest_and_points_at_devnull() -> None:
    read, stream = _pipe()
    guard = GuardedStream(stream)
    assert guard.write("first\n") == 6
    guard.flush()
    assert os.read(read, 100) == b"first\n"
    os.close(read)  # the reader goes away
    gone_before_the_write = guard.reader_gone
    assert guard.write("x" * 200_000) == 200_000  # more than any buffer: the write fails
    assert (gone_before_the_write, guard.reader_gone) == (False, True)
    guard.write("more\n")
    guard.flush()
    assert os.path.samestat(os.fstat(stream.fileno()), os.stat(os.devnull))
    stream.close()  # what it still buffered goes nowhere, without an error


def test_writelines_passes_every_line_then_drops_them_once_the_reader_left() -> None:
    read, stream = _pipe()
    guard = GuardedStream(stream)
    guard.writelines(["# Quality gate: FAIL\n", "\n", "1 significant regressions\n"])
    guard.flush()
    os.set_blocking(read, False)  # an empty pipe is an error here, not a wait
    assert os.read(read, 100) == b"# Quality gate: FAIL\n\n1 significant regressions\n"
    os.close(read)
    guard.writelines(["x" * 200_000, "more\n"])  # more than any buffer: the reader is gone
    assert guard.reader_gone
    guard.flush()
    stream.close()


def _open_descriptors() -> set[str]:
    return set(os.listdir("/dev/fd"))  # the listing's own descriptor is in both readings


def test_pointing_a_stream_at_devnull_leaves_no_descriptor_open() -> None:
    before = _open_descriptors()
    read, stream = _pipe()
    guard = GuardedStream(stream)
    os.close(read)
    guard.write("x" * 200_000)
    assert guard.reader_gone
    stream.close()
    assert _open_descriptors() == before  # devnull was opened to be copied, then closed


def test_a_small_output_meets_its_closed_pipe_at_the_flush() -> None:
    read, stream = _pipe()
    os.close(read)
    guard = GuardedStream(stream)
    guard.write("# Quality gate: FAIL\n")  # buffered: nothing is written yet
    gone_before_the_flush = guard.reader_gone
    guard.flush()
    assert (gone_before_the_flush, guard.reader_gone) == (False, True)
    stream.close()


def test_what_was_buffered_when_the_reader_left_is_dropped_at_once() -> None:
    read, stream = _pipe()
    os.close(read)
    guard = GuardedStream(stream)
    guard.write("# Quality gate: FAIL\n")  # buffered
    guard.flush()  # the pipe is closed: the reader is gone
    assert guard.reader_gone
    # Point the descriptor at a new pipe: anything the stream still buffered would go there.
    again, write = os.pipe()
    os.dup2(write, stream.fileno())
    os.close(write)
    stream.flush()
    stream.close()
    assert os.read(again, 100) == b""  # nothing was left to write
    os.close(again)


def test_guarded_streams_guard_once_and_put_the_streams_back() -> None:
    saved = (sys.stdout, sys.stderr)
    with guarded_streams():
        guarded = (sys.stdout, sys.stderr)
        assert all(isinstance(s, GuardedStream) for s in guarded)
        assert [cast(GuardedStream, s).inner for s in guarded] == list(saved)
        with guarded_streams():
            assert (sys.stdout, sys.stderr) == guarded
        assert (sys.stdout, sys.stderr) == guarded
    assert (sys.stdout, sys.stderr) == saved


# -- a reader that goes away ------------------------------------------------------------

#: More than a pipe holds (64 KiB on Linux), so the command is still writing when the
#: reader leaves, and meets the closed pipe in the middle of its output.
_PIPE_BUFFER = 64 * 1024

#: Implementations for conform: one that logs 70 KB to stdout and breaks (a failing
#: implementation with a long output: its message alone is cut to a few hundred
#: characters), one that works and logs every call to stdout.
_SUBJECTS = """
from ragward.engines.reference import ReferenceSystem


class Crashing(ReferenceSystem):
    def retrieve(self, query, asker, now_tick, policy):
        print("retrieve", "." * 70_000)
        raise RuntimeError("index unavailable: " + "x" * 20_000)


class Chatty(ReferenceSystem):
    def retrieve(self, query, asker, now_tick, policy):
        print("retrieve", repr(query)[:60].ljust(600, "."))
        return super().retrieve(query, asker, now_tick, policy)
"""

#: A shell pipeline: ragward's output read up to its first line, or not at all.
_PIPELINES = {
    "| head -n 1": 'set -o pipefail; "$@" | head -n 1; echo "exit ${PIPESTATUS[0]}"',
    "| true": '"$@" | true; echo "exit ${PIPESTATUS[0]}"',
}


def _ragward(argv: list[str]) -> list[str]:
    return [sys.executable, "-m", "ragward", *argv]


def _exit_codes_as_the_reader_goes(argv: list[str], cwd: Path) -> tuple[dict[str, int], str]:
    """``ragward ARGV``'s exit code as each reader would see it: reading everything, ``|
    head -n 1``, ``| true``, with both pipes closed before it starts, and with stderr
    closed (stdout read whole, and the same as when stderr is read); its first line."""
    import subprocess

    whole = subprocess.run(_ragward(argv), cwd=cwd, capture_output=True, timeout=300)
    assert b"Traceback" not in whole.stderr, whole.stderr.decode()
    assert len(whole.stdout) > _PIPE_BUFFER  # the output really outgrows the pipe
    first = whole.stdout.decode().splitlines()[0]
    codes = {"read whole": whole.returncode}
    for name, script in _PIPELINES.items():
        shell = subprocess.run(
            ["bash", "-c", script, "bash", *_ragward(argv)],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=300,
        )
        lines = shell.stdout.splitlines()
        if name == "| head -n 1":
            assert lines[0] == first
        codes[name] = int(lines[-1].removeprefix("exit "))
        for noise in ("Exception ignored", "Traceback", "BrokenPipeError", "internal error"):
            assert noise not in shell.stderr, shell.stderr
    closed = subprocess.Popen(
        _ragward(argv), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert closed.stdout is not None
    assert closed.stderr is not None
    closed.stdout.close()
    closed.stderr.close()
    codes["stdout and stderr closed"] = closed.wait(timeout=300)
    no_stderr = subprocess.Popen(
        _ragward(argv), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert no_stderr.stdout is not None
    assert no_stderr.stderr is not None
    no_stderr.stderr.close()
    out = no_stderr.stdout.read()
    codes["stderr closed"] = no_stderr.wait(timeout=300)
    assert out == whole.stdout  # the report is whole; only the progress lines went
    return codes, first


def _big_gate_inputs(root: Path, current: float) -> list[str]:
    """A baseline of 200 settings at 0.5 on two measures and a current run at
    ``current`` everywhere: 400 changes, a table row each."""

    def run_at(value: float) -> dict[str, dict[str, dict[str, float]]]:
        per_query = {f"q{i}": value for i in range(30)}
        return {
            f"c{96 + k}o16/minilm-l6-v2-int8/hybrid/rrf60/rerank-ms-marco-minilm/cand100": {
                "ndcg_cut_10": per_query,
                "recall_100": per_query,
            }
            for k in range(200)
        }

    baseline = write_results(root / "baseline", results(run_at(0.5)))
    now = write_results(root / "current", results(run_at(current)))
    return ["gate", "--baseline", str(baseline), "--current", str(now)]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("current", "verdict", "code"), [(0.2, "FAIL", 1), (0.8, "PASS", 0)], ids=["fail", "pass"]
)
def test_the_gates_verdict_survives_a_reader_that_goes_away(
    tmp_path: Path, current: float, verdict: str, code: int
) -> None:
    argv = _big_gate_inputs(tmp_path, current)
    codes, first = _exit_codes_as_the_reader_goes(argv, tmp_path)
    assert first == f"# Quality gate: {verdict}"
    assert codes == dict.fromkeys(codes, code)
    assert len(codes) == 5


@pytest.mark.slow
@pytest.mark.parametrize(
    ("subject", "select", "code"),
    [
        ("Crashing", "PROV-001,FUS-004", 1),
        ("Chatty", "FUS-004,FUS-006", 0),
    ],
    ids=["failing", "conforming"],
)
def test_conforms_verdict_survives_a_reader_that_goes_away(
    tmp_path: Path, subject: str, select: str, code: int
) -> None:
    (tmp_path / "subjects.py").write_text(_SUBJECTS, encoding="utf-8")
    argv = ["conform", "--impl", f"subjects.py:{subject}", "--select", select]
    codes, _ = _exit_codes_as_the_reader_goes(argv, tmp_path)
    assert codes == dict.fromkeys(codes, code)


@pytest.mark.slow
def test_evals_exit_code_and_report_survive_a_reader_that_goes_away(tmp_path: Path) -> None:
    """eval prints a row per setting: 720 of them."""
    inputs = write_inputs(tmp_path / "in")
    grid = tmp_path / "wide.toml"
    rrf = ", ".join(str(k) for k in range(1, 721))
    grid.write_text(TINY_GRID.replace("rrf_k = [60]", f"rrf_k = [{rrf}]"), encoding="utf-8")
    out = tmp_path / "report"
    argv = ["eval", "--dataset", str(inputs.data), "--grid", str(grid), "--out", str(out)]
    codes, _ = _exit_codes_as_the_reader_goes(argv, tmp_path)
    assert codes == dict.fromkeys(codes, 0)
    assert len(json.loads((out / "results.json").read_text(encoding="utf-8"))["settings"]) > 720


def test_a_usage_error_to_a_closed_stderr_still_exits_2(tmp_path: Path) -> None:
    """argparse's message to a reader that left: 2, not a traceback and 1."""
    import subprocess

    shell = subprocess.run(
        ["bash", "-c", _PIPELINES["| true"], "bash", *_ragward(["gate", "--no-such-option"])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shell.stdout == "exit 2\n"


def test_the_guarded_block_flushes_a_small_output_before_it_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read, stream = _pipe()
    os.close(read)  # the reader left before anything was written
    monkeypatch.setattr(sys, "stdout", stream)
    with guarded_streams():
        guard = sys.stdout
        print("# Quality gate: FAIL")  # buffered
        assert isinstance(guard, GuardedStream)
        gone_inside = guard.reader_gone
    # the block's end flushed it: the closed pipe is met now, not at interpreter exit
    assert (gone_inside, guard.reader_gone) == (False, True)
    assert os.path.samestat(os.fstat(stream.fileno()), os.stat(os.devnull))
    stream.close()
