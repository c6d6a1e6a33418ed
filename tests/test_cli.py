"""The command line: the demo story, errors as one line, exit codes."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from ragward.cli import main
from ragward.demo import run_demo


def _demo_text() -> str:
    out = io.StringIO()
    run_demo(out)
    return out.getvalue()


def test_demo_tells_the_leak_cases_with_ragwards_answers() -> None:
    text = _demo_text()
    lines = text.splitlines()
    ragward = next(line for line in lines if line.strip().startswith("ragward       :"))
    naive = next(line for line in lines if line.strip().startswith("post-filtered :"))
    assert "trf-3318::" in ragward
    assert naive.strip().endswith("[]")
    before = next(line for line in lines if "scores before the memos" in line).split(":")[1]
    after = next(line for line in lines if "scores after the memos" in line).split(":")[1]
    wide = next(line for line in lines if "namespace-wide BM25" in line).split(":")[1]
    assert before == after
    assert wide != after


def test_demo_hides_what_the_asker_may_not_see() -> None:
    text = _demo_text()
    outside = next(line for line in text.splitlines() if "outside the barrier :" in line)
    assert "deal-kestrel" not in outside
    assert "FAIL Halden Marine AS is being taken over in Project Kestrel" in text
    headers = next(line for line in text.splitlines() if "segment headers the model sees" in line)
    assert headers.count("[instructions]") == 1


def test_demo_is_deterministic() -> None:
    assert _demo_text() == _demo_text()


def test_cli_demo_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    assert "WHERE TOP-K-THEN-FILTER LEAKS" in capsys.readouterr().out


def test_cli_rejects_unknown_command() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["no-such-command"])
    assert exit_info.value.code == 2


@pytest.mark.slow
def test_console_script_runs_as_a_module() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ragward", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout.startswith("ragward ")


def test_cli_bench_forwards_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--anchors", "--chunks", "0"])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error == "ragward bench: error: --chunks, --queries and --scales must be >= 1"


def test_cli_rejects_options_a_command_does_not_take() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--chunks", "3"])
    assert exit_info.value.code == 2
