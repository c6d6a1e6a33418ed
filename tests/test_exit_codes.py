"""Exit codes mean one thing in every command (the table in ``ragward.exits``).

0 success, 1 a verdict, 2 bad input or usage, 3 an internal or environment failure (one
line, the traceback only with ``RAGWARD_DEBUG=1``), 130 Ctrl-C (one line, nothing
half-written). Each is checked per command, with the command's work replaced by one that
raises.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from ragward.bench.command import parser_of
from ragward.cli import _parser, main
from ragward.evals.metrics_cli import main as metrics_main
from ragward.exits import DEBUG_ENV
from tests.commands import (
    COMMANDS,
    Command,
    break_work,
    by_name,
    one_error_line,
    run,
    snapshot,
    write_inputs,
)

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
    out = tmp_path / "report"
    out.mkdir()
    (out / "results.json").write_text('{"old": true}\n', encoding="utf-8")
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
