"""Ctrl-C while a temporary PostgreSQL server starts: exit 130 in one line, and the
server's processes and directory are gone (issue 30).

``ragward conform --impl ragward.engines.postgres:rls`` starts a server on the kit's
worker thread; each case interrupts it as a process at one point of that start (the
directory just made, ``initdb`` running, the postmaster running), by SIGINT to the
process alone or to its process group (what a terminal sends). The servers are made
under a ``TMPDIR`` of the test's own, so whatever is left is found there: a
``ragward-pg-*`` directory, or a process whose command line or working directory lies
inside it (the postmaster's backends rename themselves, but work in the data directory).

On main, an interrupt just as the directory was made could leave it behind with a whole
cluster in it (once in some thirty runs): the start runs on the kit's worker thread, its
removal was registered with ``atexit`` only after the main thread's exit had run the
handlers, and ``initdb``, run under ``runuser`` (the only process killed), went on. A
postmaster started by ``pg_ctl`` had no known pid until it wrote ``postmaster.pid``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from ragward.engines.pg_server import TemporaryServer

pytest.importorskip("psycopg")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("initdb") is None, reason="no PostgreSQL server (initdb)"),
]


@pytest.fixture
def base() -> Iterator[Path]:
    """A temporary folder the ``postgres`` user can reach (pytest's are private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="ragward-test-pg-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _processes(base: Path) -> dict[int, str]:
    """Processes whose command line or working directory lies inside ``base``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            cwd = ""
        if str(base) in command or cwd.startswith(str(base)):
            found[int(entry.name)] = command or cwd
    return found


def _running(base: Path, program: str) -> bool:
    return any(command.split(" ", 1)[0].endswith(program) for command in _processes(base).values())


def _reached(base: Path, point: str) -> bool:
    if point == "directory":
        return any(base.glob("ragward-pg-*"))
    return _running(base, point)


POINTS = ["directory", "initdb", "postgres"]


def _interrupt(base: Path, point: str, *, group: bool, times: int = 1) -> tuple[int, str]:
    """Run conform on the ``rls`` configuration until ``point`` of the server's start,
    send it ``times`` SIGINTs 50 ms apart; its exit code and stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ragward", "conform", "--impl", "ragward.engines.postgres:rls",
         "--select", "ISO-001"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=base,
        env={**os.environ, "TMPDIR": str(base)},
        start_new_session=True,
        # SIGINT as a terminal gives it, not as this run may have inherited it (ignored,
        # under nohup or in a background job), which ragward would keep
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        started = time.monotonic()
        while not _reached(base, point):
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() - started < 120, f"{point} never seen"
            time.sleep(0.002)
        for number in range(times):
            if number:
                time.sleep(0.05)
            (os.killpg if group else os.kill)(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, err


def _assert_nothing_left(base: Path) -> None:
    deadline = time.monotonic() + 1.0  # the last reaps of processes already told to end
    while _processes(base) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _processes(base) == {}
    assert list(base.iterdir()) == []


@pytest.mark.parametrize("group", [False, True], ids=["process", "process-group"])
@pytest.mark.parametrize("point", POINTS)
def test_ctrl_c_during_the_server_start_leaves_nothing(base: Path, point: str, group: bool) -> None:
    code, err = _interrupt(base, point, group=group)
    assert code == 130, err
    assert err == "ragward conform: interrupted\n"
    _assert_nothing_left(base)


def test_a_second_ctrl_c_ends_the_process_and_the_server_at_once(base: Path) -> None:
    code, err = _interrupt(base, "postgres", group=True, times=2)
    # 130, or killed by SIGINT when the second lands after the interpreter gave it back
    assert code in (130, -signal.SIGINT), err
    assert err == "ragward conform: interrupted\n"
    _assert_nothing_left(base)


class _StoppedBetweenSteps(TemporaryServer):
    """A server whose :meth:`stop` lands, as if from the main thread at exit, after
    ``initdb`` finished and before the postmaster is started."""

    def _spawn(self, root: Path, program: str, *args: str, log: str) -> Any:
        if program == "postgres":
            self.stop()
        return super()._spawn(root, program, *args, log=log)


def test_a_start_stopped_from_elsewhere_starts_nothing_more(base: Path) -> None:
    server = _StoppedBetweenSteps()
    with mock.patch.dict(os.environ, {"TMPDIR": str(base)}):
        tempfile.tempdir = None  # read TMPDIR again
        try:
            with pytest.raises(RuntimeError, match="stopped while starting"):
                server.start()
        finally:
            tempfile.tempdir = None
    assert server.root is None
    _assert_nothing_left(base)


def test_a_stop_from_another_thread_during_initdb_ends_it(base: Path) -> None:
    server = TemporaryServer()
    failures: list[BaseException] = []

    def start() -> None:
        try:
            server.start()
        except BaseException as error:
            failures.append(error)

    with mock.patch.dict(os.environ, {"TMPDIR": str(base)}):
        tempfile.tempdir = None
        try:
            worker = threading.Thread(target=start)
            worker.start()
            started = time.monotonic()
            while not _running(base, "initdb") and worker.is_alive():
                assert time.monotonic() - started < 60
                time.sleep(0.002)
            server.stop()
            worker.join(60)
        finally:
            tempfile.tempdir = None
    assert [type(error) for error in failures] == [RuntimeError]
    _assert_nothing_left(base)
