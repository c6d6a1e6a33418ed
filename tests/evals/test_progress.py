"""The progress bar: a bar on a terminal, plain lines in a log, throttled, never on stdout,
always finished."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ragward.errors import InvalidArgument
from ragward.evals.progress import progress


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _frames(text: str) -> list[str]:
    """The successive redraws of the bar, without padding."""
    return [frame.rstrip() for frame in text.rstrip("\n").split("\r")[1:]]


def test_disabled_writes_nothing() -> None:
    stream = io.StringIO()
    with progress(10, "work", stream=stream, enabled=False) as bar:
        for _ in range(10):
            bar.advance()
    assert bar.count == 10
    assert stream.getvalue() == ""


def test_by_default_only_a_terminal_outside_ci_gets_a_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    plain = io.StringIO()
    with progress(3, "work", stream=plain) as bar:
        bar.advance(3)
    assert plain.getvalue().startswith("work: 3/3 100% done in ")  # a log file: a line
    assert "\r" not in plain.getvalue()
    terminal = FakeTerminal()
    with progress(3, "work", stream=terminal) as bar:
        bar.advance(3)
    assert terminal.getvalue().startswith("\rwork [")
    monkeypatch.setenv("CI", "true")
    in_ci = FakeTerminal()
    with progress(3, "work", stream=in_ci) as bar:
        bar.advance(3)
    assert in_ci.getvalue().startswith("work: 3/3 100% done in ")


def test_a_log_gets_a_line_every_ten_seconds_and_one_at_the_end() -> None:
    """In a CI log a run of minutes shows it moves (issue 30, defect 9: it said nothing)."""
    stream, clock = io.StringIO(), FakeClock()
    with progress(600, "queries c96o16", stream=stream, clock=clock) as bar:
        for _ in range(600):
            clock.now += 0.125  # 75 s in all, in steps exact in binary
            bar.advance()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 7 + 1  # at 10, 20, ... 70 s, and at the end
    assert lines[0] == "queries c96o16: 80/600  13% 0:10 elapsed, ETA 1:05"
    assert lines[6] == "queries c96o16: 560/600  93% 1:10 elapsed, ETA 0:05"
    assert lines[-1] == "queries c96o16: 600/600 100% done in 75.0 s"
    assert "\r" not in stream.getvalue()


def test_a_log_says_nothing_more_when_the_work_stops() -> None:
    """The command's one error line says why; a log line before it would make two."""
    stream, clock = io.StringIO(), FakeClock()

    def fail() -> None:
        with progress(4, "work", stream=stream, clock=clock) as bar:
            bar.advance()
            clock.now += 2
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fail()
    assert stream.getvalue() == ""


@pytest.mark.slow
@pytest.mark.parametrize("ci", ["", "true"])
def test_eval_in_a_log_says_what_it_is_doing(tmp_path: Path, ci: str) -> None:
    from tests.commands import write_inputs

    inputs = write_inputs(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "ragward", "eval", "--dataset", str(inputs.data), "--grid",
         str(inputs.grid), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, env={**os.environ, "CI": ci}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    logged = [line for line in done.stderr.splitlines() if " done in " in line]
    assert logged[0].startswith("index c16o2/hash-96: 4/4 100% done in ")
    assert re.match(r"queries c16o2/hash-96: (\d+)/\1 100% done in ", logged[1])
    assert "\r" not in done.stderr


def test_lines_show_count_percentage_elapsed_and_eta() -> None:
    stream, clock = io.StringIO(), FakeClock()
    with progress(10, "index c96", stream=stream, enabled=True, clock=clock) as bar:
        clock.now += 2.0
        bar.advance(5)
        clock.now += 2.0
        bar.advance(5)
    frames = _frames(stream.getvalue())
    assert frames == [
        "index c96 [....................] 0/10   0% 0:00 elapsed, ETA --:--",
        "index c96 [##########..........] 5/10  50% 0:02 elapsed, ETA 0:02",
        "index c96 [####################] 10/10 100% 0:04 elapsed, ETA 0:00",
        "index c96 [####################] 10/10 100% done in 4.0 s",
    ]
    # the final line is shorter than the one before; spaces blank what it leaves behind
    assert stream.getvalue().endswith(
        "done in 4.0 s" + " " * (len(frames[2]) - len(frames[3])) + "\n"
    )


def test_redraws_at_most_ten_times_a_second() -> None:
    stream, clock = io.StringIO(), FakeClock()
    with progress(1000, "queries", stream=stream, enabled=True, clock=clock) as bar:
        for _ in range(1000):
            clock.now += 0.001  # one second in all
            bar.advance()
    frames = _frames(stream.getvalue())
    # the first frame, one per 0.1 s (the 1 ms steps land within rounding of each boundary),
    # and the final line
    assert 1 + 9 + 1 <= len(frames) <= 1 + 10 + 1
    assert frames[-1] == "queries [####################] 1000/1000 100% done in 1.0 s"


def test_an_error_still_ends_the_line_and_propagates() -> None:
    stream, clock = io.StringIO(), FakeClock()

    def fail_halfway() -> None:
        with progress(4, "work", stream=stream, enabled=True, clock=clock) as bar:
            bar.advance()
            clock.now += 0.5
            raise KeyError("boom")

    with pytest.raises(KeyError):
        fail_halfway()
    last = _frames(stream.getvalue())[-1]
    assert last == "work [#####...............] 1/4  25% stopped after 0.5 s"
    assert stream.getvalue().endswith("\n")


def test_zero_items_and_overshoot_do_not_break_the_arithmetic() -> None:
    stream, clock = io.StringIO(), FakeClock()
    with progress(0, "empty", stream=stream, enabled=True, clock=clock):
        pass
    assert _frames(stream.getvalue())[-1] == "empty [####################] 0/0 100% done in 0.0 s"
    stream = io.StringIO()
    with progress(2, "over", stream=stream, enabled=True, clock=clock) as bar:
        clock.now += 1.0
        bar.advance(3)
    assert "3/2 150% 0:01 elapsed, ETA 0:00" in stream.getvalue()


def test_default_stream_is_stderr_never_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    with progress(2, "work", enabled=True) as bar:
        bar.advance(2)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "2/2 100% done" in captured.err
    with pytest.raises(InvalidArgument, match="stdout"):
        progress(2, "work", stream=sys.stdout, enabled=False).__enter__()


@pytest.mark.parametrize("total", [-1, 2.5, True])
def test_invalid_total_is_rejected(total: int) -> None:
    with pytest.raises(InvalidArgument, match="total"):
        progress(total, "work", stream=io.StringIO()).__enter__()


def test_advance_cannot_go_backwards() -> None:
    with progress(2, "work", stream=io.StringIO(), enabled=False) as bar:
        bar.advance()
    with pytest.raises(InvalidArgument, match="n >= 0"):
        bar.advance(-1)
    assert bar.count == 1


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_a_line_never_wraps_on_a_narrow_terminal() -> None:
    import fcntl
    import struct
    import termios

    controller, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
    label = "a rather long label for the bar"
    with (
        open(terminal, "w", encoding="utf-8", closefd=True) as stream,
        progress(5, label, stream=stream, enabled=True) as bar,
    ):
        bar.advance(5)
    output = os.read(controller, 4096).decode("utf-8")
    os.close(controller)
    lines = [frame.rstrip() for frame in output.replace("\r\n", "\n").split("\r") if frame]
    assert lines
    assert all(len(line.rstrip("\n")) <= 39 for line in lines)
