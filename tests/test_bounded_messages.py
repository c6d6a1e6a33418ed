"""Text from an implementation is cut to a few hundred characters with its total length
(issue 30, defect 6).

A peer's error message was repeated whole: 50 MB hung the conformance table's wrapping
(stopped at 300 s) and 1 MB took 22 s and printed 2.9 MB. Every way an implementation's
words reach a message is tried here, through a peer and in process, for ``conform`` and
``eval``: the output stays small, one line per error, and says how long the text was.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.clipped import LIMIT, MESSAGE_LIMIT, clip, first_line
from tests.commands import one_error_line, run, write_inputs
from tests.wrapped_reference import wrapped_reference

#: A peer that serves the reference but fails every retrieve with ``SIZE`` characters.
PEER = wrapped_reference(
    "loud",
    'raise RuntimeError("boom " + "x y " * (int(sys.argv[1]) // 4))',
    imports="import sys\n",
    peer=True,
)

#: The same implementation in process, for ``--impl FILE.py:loud``.
IMPL = wrapped_reference("loud", 'raise RuntimeError("boom " + "x y " * 250_000)')


def _ragward(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragward", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


@pytest.mark.parametrize("size", [1_000_000, 50_000_000], ids=["1MB", "50MB"])
def test_conform_reports_a_peers_huge_error_in_a_few_hundred_characters(
    tmp_path: Path, size: int
) -> None:
    (tmp_path / "peer.py").write_text(PEER, encoding="utf-8")
    peer = f"{sys.executable} peer.py {size}"
    done = _ragward(
        "conform", "--external", peer, "--select", "ISO-001", "--json", "c.json", cwd=tmp_path
    )
    assert done.returncode == 1, done.stderr
    assert len(done.stdout) < 5_000  # was 2.9 MB for 1 MB
    (verdict,) = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))["invariants"]
    assert verdict["verdict"] == "error"
    assert "exception: RuntimeError: boom x y x y" in verdict["reason"]
    assert f"... ({size // 4 * 4 + 5:,} characters)" in verdict["reason"]
    assert len(verdict["reason"]) < 1_000


def test_eval_stops_on_a_peers_huge_error_with_one_short_line(tmp_path: Path) -> None:
    inputs = write_inputs(tmp_path / "in")
    (tmp_path / "peer.py").write_text(PEER, encoding="utf-8")
    peer = f"{sys.executable} peer.py 1000000"
    done = _ragward(
        "eval", "--dataset", str(inputs.data), "--grid", str(inputs.grid), "--external", peer,
        "--out", "o", "--quiet", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    line = done.stderr.splitlines()[-1]
    assert line.startswith("ragward eval: error: ")
    assert line.endswith("... (1,000,005 characters)")
    assert len(done.stderr) < 2_000  # was 1 MB


@pytest.mark.parametrize("command", ["conform", "eval"])
def test_an_implementation_in_process_is_cut_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    inputs = write_inputs(tmp_path / "in")
    module = tmp_path / f"loud_{command}.py"  # a module name is loaded once per process
    module.write_text(IMPL, encoding="utf-8")
    impl = f"{module}:loud"
    if command == "conform":
        argv = ["conform", "--impl", impl, "--select", "ISO-001", "--json", str(tmp_path / "c")]
    else:
        argv = ["eval", "--dataset", str(inputs.data), "--grid", str(inputs.grid)]
        argv += ["--impl", impl, "--out", str(tmp_path / "o"), "--quiet"]
    code, out, err = run(argv, capsys)
    if command == "conform":
        assert code == 1, err
        assert len(out) < 5_000
        (verdict,) = json.loads((tmp_path / "c").read_text(encoding="utf-8"))["invariants"]
        reason = verdict["reason"]
    else:
        assert code == 2, err
        reason = one_error_line(err, "eval")
    assert "boom x y x y" in reason
    assert "... (1,000,005 characters)" in reason
    assert len(reason) < 1_000


def test_a_peers_malformed_answer_with_a_huge_field_is_cut(tmp_path: Path) -> None:
    from ragward.conformance.records import Asker, Policy
    from ragward.conformance.wire import WireError, external_factory
    from tests.conformance.test_wire import _peer

    body = """\
    unknown = {f"field_{i}": i for i in range(100_000)}
    answer(request, {} if request["op"] == "hello" else {"hits": [], **unknown})
    """
    with external_factory(_peer(textwrap.dedent(body))) as factory:
        system = factory()
        with pytest.raises(WireError) as caught:
            system.retrieve("q", Asker("u", "t"), 0, Policy())
    message = str(caught.value)
    assert "malformed result (result: unknown field(s)" in message
    assert len(message) < 1_000


# The function every message goes through.


@given(st.text() | st.text().map(lambda t: t * 50), st.integers(min_value=50, max_value=400))
def test_clip_is_one_line_bounded_and_says_the_length(text: str, limit: int) -> None:
    clipped = clip(text, limit)
    assert len(clipped.splitlines()) <= 1
    assert not any(unicodedata.category(c) == "Cc" for c in clipped)  # escaped: \x1b
    assert len(clipped) <= limit + 40  # the limit counts escapes too
    if len(text) <= limit and not clipped.endswith(" characters)"):  # kept whole
        shown = iter(clipped)  # every printable character, in order
        assert all(c in shown for c in text if c.isprintable() and not c.isspace())
    elif len(text.strip()) > 2 * limit:
        assert clipped.endswith(f"... ({len(text):,} characters)")
    assert clip(clipped, limit) == clipped  # clipping twice keeps the first total


def test_clip_keeps_a_short_text_and_cuts_a_long_one_by_hand() -> None:
    assert clip("  disk full\n") == "disk full"
    assert clip("a\r\nb") == "a  b"
    assert clip("x" * (LIMIT + 1)) == "x" * LIMIT + f"... ({LIMIT + 1:,} characters)"
    assert clip(RuntimeError("boom")) == "boom"


def test_first_line_takes_the_first_non_blank_line_only() -> None:
    assert first_line("\n\n  first\nsecond") == "first"
    assert first_line("y" * 10_000 + "\nz", 10) == "y" * 10 + "... (10,000 characters)"


def test_an_object_that_cannot_be_shown_still_gives_a_message() -> None:
    class Broken:
        def __str__(self) -> str:
            raise ValueError("no")

    assert clip(Broken()) == "<Broken that cannot be shown>"


def test_a_commands_error_line_is_bounded_whatever_it_quotes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    name = "q" * 100_000
    code, _, err = run(["eval", "--split", name, "--out", str(tmp_path / "o"), "--quiet"], capsys)
    assert code == 2
    line = one_error_line(err, "eval")
    assert len(line) < MESSAGE_LIMIT + 100
    assert line.endswith(" characters)")
