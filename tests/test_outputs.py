"""Output paths (``ragward.outputs``): refused before any work, written whole or not at all.

Every command with an output option gets each kind of unwritable path, and must refuse it
with one line and exit 2 before its work starts (the work is replaced by a function that
fails the test). A report directory is swapped in whole; an interrupted write leaves the
previous report as it was; a folder ragward did not write (its report file missing, not
JSON, or without ragward's format tag) is never replaced.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ragward.cli import main
from ragward.errors import OutputError
from ragward.evals.report import REPORT_MARKER
from ragward.outputs import (
    ReportKind,
    check_directory,
    check_file,
    replaced_directory,
    write_atomic,
)
from tests.commands import (
    WRITERS,
    Command,
    break_work,
    by_name,
    one_error_line,
    run,
    snapshot,
    unwritable_directory,
    write_inputs,
)
from tests.evals.dataset_files import write_dataset
from tests.evals.gate_inputs import results, write_results
from tests.evals.test_eval_cli import SMALL_GRID


def _bad_directories(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Name -> (a directory path that cannot be written, what the error says)."""
    tmp_path.mkdir(exist_ok=True)
    afile = tmp_path / "a-file"
    afile.write_text("x", encoding="utf-8")
    return {
        "file": (afile, "is a file, not a directory"),
        "under-file": (afile / "out", "which is a file"),
        "unwritable": (unwritable_directory(tmp_path) / "ragward-out", "cannot write in"),
    }


def _bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Name -> (a file path that cannot be written, what the error says)."""
    tmp_path.mkdir(exist_ok=True)
    afile = tmp_path / "a-file"
    afile.write_text("x", encoding="utf-8")
    folder = tmp_path / "a-folder"
    folder.mkdir()
    return {
        "directory": (folder, "is a directory, not a file"),
        "under-file": (afile / "out.json", "which is a file"),
        "missing-folder": (tmp_path / "no-such" / "out.json", "does not exist"),
        "unwritable": (unwritable_directory(tmp_path) / "out.json", "cannot write in"),
    }


CASES = [
    pytest.param(command, case, id=f"{command.name}-{command.output}-{case}")
    for command in WRITERS
    for case in (
        ("file", "under-file", "unwritable")
        if command.kind == "dir"
        else ("directory", "under-file", "missing-folder", "unwritable")
    )
]


@pytest.mark.parametrize(("command", "case"), CASES)
def test_an_unwritable_output_is_one_line_and_exit_2_before_any_work(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: Command,
    case: str,
) -> None:
    inputs = write_inputs(tmp_path / "in")
    bad = (_bad_directories if command.kind == "dir" else _bad_files)(tmp_path / "bad")
    target, expected = bad[case]
    break_work(monkeypatch, command, AssertionError("the work started"))
    before = snapshot(tmp_path)
    code, out, err = run(command.argv(inputs, target), capsys)
    assert code == 2, err
    line = one_error_line(err, command.name)
    assert f"error: {command.output} {target}: " in line
    assert expected in line
    assert out == ""
    assert snapshot(tmp_path) == before  # nothing written, not even a probe


@pytest.mark.parametrize("name", ["eval", "tune"])
def test_a_folder_of_other_files_is_not_replaced_by_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    command = by_name(name)
    inputs = write_inputs(tmp_path / "in")
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me", encoding="utf-8")
    break_work(monkeypatch, command, AssertionError("the work started"))
    code, _, err = run(command.argv(inputs, folder), capsys)
    assert code == 2
    line = one_error_line(err, name)
    assert f"holds 'notes.txt' but no {command.marker}" in line
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "keep me"


def _foreign_folder(folder: Path, marker: str) -> Path:
    """The issue's folder: a user's files, and another tool's file under ragward's name."""
    (folder / "src").mkdir(parents=True)
    (folder / "important.txt").write_text("the only copy\n", encoding="utf-8")
    (folder / "src" / "main.py").write_text("print('hello')\n", encoding="utf-8")
    (folder / marker).write_text('{"accuracy": 0.9}\n', encoding="utf-8")
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("name", ["eval", "tune"])
def test_a_folder_with_another_tools_report_file_is_left_whole_and_exit_2(
    tmp_path: Path, name: str
) -> None:
    """The issue's case, as a user meets it: a subprocess, the folder byte for byte."""
    import subprocess
    import sys

    command = by_name(name)
    assert command.marker is not None
    inputs = write_inputs(tmp_path / "in")
    folder = _foreign_folder(tmp_path / "mine", command.marker)
    before = snapshot(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "ragward", *command.argv(inputs, folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    line = one_error_line(done.stderr, name)
    assert line == (
        f"ragward {name}: error: --out {folder}: {command.marker} is not a ragward {name} "
        "report (no format tag), so the folder is not replaced; give a new or empty directory"
    )
    assert done.stdout == ""
    assert snapshot(tmp_path) == before  # every file, every byte, nothing beside it


#: name -> (what the report file holds, what the error says about it).
_NOT_REPORTS = {
    "empty": ("", "(empty)"),
    "blank": ("\n  \n", "(empty)"),
    "not-json": ("accuracy: 0.9\n", "(not JSON)"),
    "not-utf8": ("\udcff", "(not JSON)"),
    "a-list": ('["ragward-eval/1"]', "(no format tag)"),
    "no-tag": ('{"settings": []}', "(no format tag)"),
    "other-tag": ('{"format": "mlflow/2"}', "(format 'mlflow/2', not ragward-"),
    "tag-not-text": ('{"format": 1}', "(format 1, not ragward-"),
    "prefix-only": ('{"format": "ragward-eval"}', "(format 'ragward-eval', not ragward-"),
    "other-kind": ('{"format": "ragward-conform/1"}', "(format 'ragward-conform/1', not"),
}


@pytest.mark.parametrize("case", sorted(_NOT_REPORTS))
@pytest.mark.parametrize("name", ["eval", "tune"])
def test_a_report_file_ragward_did_not_write_is_exit_2_before_any_work(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    case: str,
) -> None:
    command = by_name(name)
    assert command.marker is not None
    inputs = write_inputs(tmp_path / "in")
    folder = tmp_path / "out"
    folder.mkdir()
    text, expected = _NOT_REPORTS[case]
    (folder / command.marker).write_bytes(text.encode("utf-8", "surrogateescape"))
    break_work(monkeypatch, command, AssertionError("the work started"))
    before = snapshot(tmp_path)
    code, out, err = run(command.argv(inputs, folder), capsys)
    assert code == 2, err
    line = one_error_line(err, name)
    assert f"--out {folder}: {command.marker} is not a ragward {name} report {expected}" in line
    assert out == ""
    assert snapshot(tmp_path) == before


def test_a_report_of_the_other_command_is_not_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An eval report's results.json in a folder given to tune, and the other way round:
    each kind has its own tag."""
    inputs = write_inputs(tmp_path / "in")
    tune_out = tmp_path / "tuned"
    assert main(by_name("tune").argv(inputs, tune_out)) == 0
    (tune_out / "results.json").write_text("{}", encoding="utf-8")
    renamed = tmp_path / "renamed"
    renamed.mkdir()
    (renamed / "tune.json").write_bytes((inputs.baseline / "results.json").read_bytes())
    capsys.readouterr()
    for name, folder in (("eval", tune_out), ("tune", renamed)):
        before = snapshot(tmp_path)
        code, _, err = run(by_name(name).argv(inputs, folder), capsys)
        assert code == 2, err
        assert f"is not a ragward {name} report" in one_error_line(err, name)
        assert snapshot(tmp_path) == before


def test_an_earlier_report_of_any_version_of_the_format_is_replaced(tmp_path: Path) -> None:
    """The tag's version may change (``ragward-eval/1`` to ``/2``): a report of another
    version is still ragward's own, and is replaced like today's."""
    for version, tag in enumerate(("ragward-eval/1", "ragward-eval/2", "ragward-eval/10")):
        folder = tmp_path / f"v{version}"
        folder.mkdir()
        (folder / "results.json").write_text(json.dumps({"format": tag}), encoding="utf-8")
        (folder / "old.svg").write_text("<svg/>", encoding="utf-8")
        check_directory(folder, "--out", REPORT_MARKER)
        with replaced_directory(folder, REPORT_MARKER) as staging:
            (staging / "results.json").write_text('{"new": 1}', encoding="utf-8")
        assert sorted(p.name for p in folder.iterdir()) == ["results.json"]


def test_the_swap_itself_refuses_a_folder_that_stopped_being_a_report(tmp_path: Path) -> None:
    """The check is made again when the report is written (minutes after the first one):
    a folder that changed meanwhile is refused before anything is written."""
    folder = _foreign_folder(tmp_path / "mine", "results.json")
    before = snapshot(tmp_path)
    refused = pytest.raises(OutputError, match=r"results.json is not a ragward eval report")
    with refused, replaced_directory(folder, REPORT_MARKER):
        raise AssertionError("the block ran")
    assert snapshot(tmp_path) == before


def test_a_format_tag_without_a_version_is_not_a_report_kind() -> None:
    assert ReportKind("results.json", "ragward-eval/1", "eval report").family == "ragward-eval/"
    with pytest.raises(ValueError, match="NAME/VERSION"):
        ReportKind("results.json", "ragward-eval", "eval report")


def _eval_argv(data: Path, grid: Path, out: Path) -> list[str]:
    return ["eval", "--dataset", str(data), "--grid", str(grid), "--out", str(out), "--quiet"]


def test_a_new_report_leaves_no_file_of_an_earlier_larger_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    large = tmp_path / "large.toml"
    large.write_text(SMALL_GRID, encoding="utf-8")
    small = tmp_path / "small.toml"
    small.write_text(SMALL_GRID.replace(", { max_tokens = 8, overlap_tokens = 0 }", ""), "utf-8")
    out = tmp_path / "report"
    assert main([*_eval_argv(data, large, out), "--trec"]) == 0
    large_runs = {p.name for p in (out / "trec").iterdir()}
    assert main(_eval_argv(data, small, out)) == 0
    capsys.readouterr()
    assert not (out / "trec").exists()  # the earlier report's TREC files went with it
    settings = json.loads((out / "results.json").read_text(encoding="utf-8"))["settings"]
    assert len(settings) < len(large_runs) - 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "data",
        "large.toml",
        "report",
        "small.toml",
    ]


def test_an_interrupted_report_write_leaves_the_previous_report_intact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = write_dataset(tmp_path / "data")
    grid = tmp_path / "grid.toml"
    grid.write_text(SMALL_GRID, encoding="utf-8")
    out = tmp_path / "report"
    assert main(_eval_argv(data, grid, out)) == 0
    before = snapshot(tmp_path)
    written: list[Path] = []
    real = write_atomic

    def interrupted_after_two(path: str | os.PathLike[str], text: str) -> None:
        if len(written) == 2:  # results.json and summary.md are in, the plots are not
            raise KeyboardInterrupt
        written.append(Path(path))
        real(path, text)

    monkeypatch.setattr("ragward.evals.report.write_atomic", interrupted_after_two)
    capsys.readouterr()
    code, _, err = run(_eval_argv(data, grid, out), capsys)
    assert code == 130
    assert one_error_line(err, "eval", "interrupted") == "ragward eval: interrupted"
    assert written
    assert all(p.parent != out for p in written)  # written beside, not into
    assert snapshot(tmp_path) == before  # the old report, whole; no staging folder left


def _spaced_query_inputs(tmp_path: Path) -> tuple[Path, Path]:
    """A dataset whose query id ``q 1`` holds a space (a TREC run file cannot), and a grid."""
    spaced = '{"_id": "q 1", "text": "alpha?"}'
    data = write_dataset(
        tmp_path / "data",
        changes={"queries.jsonl": {1: spaced}, "qrels/test.tsv": {2: "q 1\td1\t1"}},
    )
    grid = tmp_path / "grid.toml"
    grid.write_text(SMALL_GRID, encoding="utf-8")
    return data, grid


def test_trec_ids_a_run_file_cannot_hold_are_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, grid = _spaced_query_inputs(tmp_path)
    break_work(monkeypatch, by_name("eval"), AssertionError("the run started"))
    out = tmp_path / "out"
    code, _, err = run([*_eval_argv(data, grid, out), "--trec"], capsys)
    assert code == 2
    line = one_error_line(err, "eval")
    assert "--trec: query 'q 1' cannot be a TREC field" in line
    assert not out.exists()


def test_the_same_run_without_trec_accepts_such_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, grid = _spaced_query_inputs(tmp_path)
    assert main(_eval_argv(data, grid, tmp_path / "out")) == 0
    capsys.readouterr()


def test_tune_replaces_its_report_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = write_inputs(tmp_path / "in")
    out = tmp_path / "tuned"
    argv = by_name("tune").argv(inputs, out)
    assert main(argv) == 0
    (out / "tune.json.bak").write_text("an earlier file", encoding="utf-8")
    assert main(argv) == 0
    capsys.readouterr()
    assert sorted(p.name for p in out.iterdir()) == ["tune.json", "tune.md"]


def test_an_interrupted_single_file_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "gate.md"
    target.write_text("old", encoding="utf-8")

    def interrupt(descriptor: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, "new and longer")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["gate.md"]


def test_an_interrupted_block_leaves_the_target_as_it_was(tmp_path: Path) -> None:
    target = write_results(tmp_path / "report", results({}))
    before = snapshot(tmp_path)

    def interrupted() -> None:
        with replaced_directory(target, REPORT_MARKER) as staging:
            (staging / "results.json").write_text('{"new": 1}', encoding="utf-8")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted()
    assert snapshot(tmp_path) == before


def test_checks_name_the_option_and_the_path(tmp_path: Path) -> None:
    afile = tmp_path / "f"
    afile.write_text("", encoding="utf-8")
    with pytest.raises(OutputError, match=r"^--out .*/f/x: is under .*/f, which is a file$"):
        check_directory(afile / "x", "--out")
    with pytest.raises(OutputError, match=r"^--json .*: is a directory, not a file$"):
        check_file(tmp_path, "--json")
    check_directory(tmp_path / "new" / "deeper", "--out")  # creatable: fine
    check_file(tmp_path / "new.json", "--json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_a_link_to_a_report_is_replaced_by_the_new_report(tmp_path: Path) -> None:
    real = write_results(tmp_path / "real", results({}))
    old = (real / "results.json").read_bytes()
    link = tmp_path / "report"
    link.symlink_to(real, target_is_directory=True)
    with replaced_directory(link, REPORT_MARKER) as staging:
        (staging / "results.json").write_text('{"new": 1}', encoding="utf-8")
    assert not link.is_symlink()
    assert (link / "results.json").read_text(encoding="utf-8") == '{"new": 1}'
    assert (real / "results.json").read_bytes() == old  # the target untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real", "report"]


def _refuse_new_entries_in(directory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.mkdir`` fails in ``directory`` as on a read-only mount (which even root meets)."""
    real = os.mkdir

    def mkdir(path: str | os.PathLike[str], mode: int = 0o777) -> None:
        if Path(path).parent == directory:
            raise OSError(30, "Read-only file system")
        real(path, mode)

    monkeypatch.setattr(os, "mkdir", mkdir)


def test_an_existing_folder_that_refuses_new_entries_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    _refuse_new_entries_in(folder, monkeypatch)
    with pytest.raises(OutputError, match=r"^--out .*/out: cannot write in .*/out \(Read-only"):
        check_directory(folder, "--out")


def test_a_report_folder_whose_parent_refuses_new_entries_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_results(tmp_path / "parent" / "report", results({}))
    _refuse_new_entries_in(folder.parent, monkeypatch)  # the folder itself takes entries
    with pytest.raises(OutputError, match=r"cannot write in .*/parent \(Read-only"):
        check_directory(folder, "--out", REPORT_MARKER)
    check_directory(folder, "--out")  # written in place, the parent does not matter


def test_an_existing_temporary_name_is_never_written_over(tmp_path: Path) -> None:
    target = tmp_path / "gate.md"
    taken = tmp_path / f".gate.md.{os.getpid()}.0.tmp"  # the first name write_atomic tries
    taken.write_text("someone else's", encoding="utf-8")
    write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert taken.read_text(encoding="utf-8") == "someone else's"


def test_an_old_report_that_cannot_be_removed_does_not_fail_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = write_results(tmp_path / "report", results({}))
    real = os.rmdir

    def rmdir(path: str | os.PathLike[str], *args: object, **kwargs: object) -> None:
        if str(path).endswith(".old"):  # the old report, moved aside
            raise PermissionError(13, "Permission denied")
        real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "rmdir", rmdir)
    with replaced_directory(target, REPORT_MARKER) as staging:
        (staging / "results.json").write_text('{"new": 1}', encoding="utf-8")
    assert (target / "results.json").read_text(encoding="utf-8") == '{"new": 1}'


def test_a_failed_swap_puts_the_old_report_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = write_results(tmp_path / "report", results({}))
    before = snapshot(tmp_path)
    real = os.rename
    calls: list[str] = []

    def rename(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
        calls.append(Path(destination).name)
        if len(calls) == 2:  # the new report into place, after the old one moved aside
            raise OSError(28, "No space left on device")
        real(source, destination)

    monkeypatch.setattr(os, "rename", rename)
    with (
        pytest.raises(OSError, match="No space left"),
        replaced_directory(target, REPORT_MARKER) as staging,
    ):
        (staging / "results.json").write_text('{"new": 1}', encoding="utf-8")
    assert calls[1] == "report"
    assert snapshot(tmp_path) == before


def test_a_report_folder_is_created_with_its_missing_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "report"
    with replaced_directory(target, REPORT_MARKER) as staging:
        (staging / "results.json").write_text('{"new": 1}', encoding="utf-8")
    assert (target / "results.json").read_text(encoding="utf-8") == '{"new": 1}'
    assert [p.name for p in target.parent.iterdir()] == ["report"]


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o000])
def test_a_file_written_whole_has_the_permissions_the_umask_gives(
    tmp_path: Path, mask: int
) -> None:
    target = tmp_path / "gate.md"
    previous = os.umask(mask)
    try:
        write_atomic(target, "text")
    finally:
        os.umask(previous)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def test_the_whole_text_is_on_disk_before_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "gate.md"
    synced: list[int] = []
    real = os.fsync

    def fsync(descriptor: int) -> None:
        synced.append(os.fstat(descriptor).st_size)  # what the file holds when synced
        real(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(target, "# Quality gate: FAIL\n")
    assert synced == [len("# Quality gate: FAIL\n")]


def test_a_ctrl_c_just_after_the_rename_is_still_an_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python raises KeyboardInterrupt at the first instruction after the call that was
    # running: here, once the new file already has its name.
    target = tmp_path / "gate.md"
    target.write_text("old", encoding="utf-8")
    real = os.replace

    def replace(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
        real(source, destination)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["gate.md"]


def test_a_file_is_written_with_its_missing_folders(tmp_path: Path) -> None:
    # the benchmarks write their reports this way, into an --out folder not made yet
    target = tmp_path / "a" / "b" / "power.md"
    write_atomic(target, "text")
    assert target.read_text(encoding="utf-8") == "text"


@pytest.mark.parametrize("existing", [False, True])
def test_a_ctrl_c_just_after_the_swap_leaves_the_new_report_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, existing: bool
) -> None:
    target = tmp_path / "report"
    if existing:
        write_results(target, results({}))
    real = os.rename

    def rename(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
        real(source, destination)
        if Path(destination) == target:  # the new report is in place, then Ctrl-C lands
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "rename", rename)
    with (
        pytest.raises(KeyboardInterrupt),
        replaced_directory(target, REPORT_MARKER) as staging,
    ):
        (staging / "results.json").write_text('{"new": 1}', encoding="utf-8")
    assert (target / "results.json").read_text(encoding="utf-8") == '{"new": 1}'
    assert [p.name for p in tmp_path.iterdir()] == ["report"]  # no old report left aside
