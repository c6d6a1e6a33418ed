"""Throw-away PostgreSQL servers, gone whenever the process stops, Ctrl-C included.

:class:`TemporaryServer` runs ``initdb`` and then the postmaster itself as its own child
processes, each in a session of its own, rather than through ``pg_ctl start``: ``pg_ctl``
forks the postmaster and returns, so a Ctrl-C that cut it short left a postmaster whose
pid nobody knew until it wrote ``postmaster.pid`` (it then ran on in a directory about to
be removed). Here the pid of everything started is known from the moment it is forked,
and :meth:`TemporaryServer.stop` ends it from any thread, at any point of the start:

* from the starting thread, when Ctrl-C (``KeyboardInterrupt``) or a failure stops it;
* at interpreter exit, when the start ran on another thread (the kit's guarded worker) and
  the main thread returned exit 130 meanwhile: the start then sees it was stopped and
  starts nothing more;
* on a second Ctrl-C, which ends the process at once (:func:`ragward.interrupts.on_interrupt`).

Their own sessions keep a terminal's Ctrl-C from reaching them half-way through a write:
ragward decides how they stop (the postmaster's fast shutdown, ``SIGINT``, then
``SIGKILL`` to its process group if it is slow).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

from ragward.errors import MissingExtra
from ragward.interrupts import deferred, on_interrupt

__all__ = ["TemporaryServer", "pgserver_bin"]

#: Seconds the postmaster may take to be ready, and to shut down before it is killed.
START_SECONDS = 60.0
STOP_SECONDS = 10.0

_pgserver_copy: Path | None = None
_copy_lock = threading.Lock()

#: Servers started and not yet stopped, and folders to remove, at interpreter exit; once
#: it has begun, nothing new is made (a start on a daemon thread runs on meanwhile, and a
#: folder it made after the exit's cleanup would stay). One handler registered at import
#: sees them all: one registered by the start itself could come after the handlers ran.
_live: set[TemporaryServer] = set()
_folders: list[Path] = []
_exit_lock = threading.Lock()
_exit = {"begun": False}


def _made_for_this_process(prefix: str, server: TemporaryServer | None = None) -> Path:
    """A new temporary folder, removed at exit (by ``server``'s stop, if given); refused
    once the exit has begun."""
    with _exit_lock, deferred():
        if _exit["begun"]:
            raise RuntimeError("the process is exiting: no PostgreSQL server is started now")
        folder = Path(tempfile.mkdtemp(prefix=prefix))
        _folders.append(folder)
        if server is not None:
            server.root = server._dir = folder
            _live.add(server)
        return folder


@atexit.register
def _stop_all() -> None:
    with _exit_lock:
        _exit["begun"] = True
        servers = list(_live)
    for server in servers:
        server.stop()
    for folder in _folders:
        shutil.rmtree(folder, ignore_errors=True)


def pgserver_bin() -> Path:
    """The folder of the ``pgserver`` wheel's PostgreSQL 16 + pgvector binaries."""
    try:
        import pgserver
    except ImportError:
        raise MissingExtra(
            "this configuration needs pgserver: pip install 'ragward[pgvector]'"
        ) from None
    installed = Path(pgserver.__file__).parent / "pginstall"
    if os.geteuid() != 0:
        return installed / "bin"
    # As root the server runs as the postgres user, who may not be able to reach a
    # virtual environment under a private directory: give it a copy it can read (the
    # install is relocatable, 34 MB with its libraries), once per process, removed at exit.
    global _pgserver_copy
    with _copy_lock:
        if _pgserver_copy is None:
            root = _made_for_this_process("ragward-pgserver-")
            root.chmod(0o755)
            # The binaries find their libraries at $ORIGIN/../../../pgserver.libs (the
            # wheel's vendored ones): keep that layout.
            shutil.copytree(installed, root / "pgserver" / "pginstall", symlinks=True)
            libs = installed.parent.parent / "pgserver.libs"
            if libs.is_dir():
                shutil.copytree(libs, root / "pgserver.libs", symlinks=True)
            _pgserver_copy = root / "pgserver" / "pginstall" / "bin"
        return _pgserver_copy


class TemporaryServer:
    """A throw-away PostgreSQL cluster on a Unix socket in a temporary directory.

    ``initdb`` (trust authentication, ``fsync=off``: nothing here must survive a crash)
    and the postmaster on entry; its fast shutdown and removal of the directory on exit,
    on a failed or interrupted start, or at interpreter exit, whichever comes first.
    ``bindir`` holds the binaries (None: ``initdb`` on ``PATH``, ``postgres`` beside it,
    where ``pg_ctl`` would look). PostgreSQL refuses to run as root, so under euid 0 the
    binaries run as the ``postgres`` system user, who is given the directory.

    >>> with TemporaryServer() as server:  # doctest: +SKIP
    ...     psycopg.connect(server.dsn)
    """

    def __init__(self, bindir: Path | None = None, *, user: str = "postgres") -> None:
        self.bindir = bindir
        self.user = user
        self.root: Path | None = None
        self._lock = threading.RLock()
        self._child: subprocess.Popen[bytes] | None = None  # initdb, then the postmaster
        self._program = ""
        self._dir: Path | None = None  # self.root until the removal is done
        self._stopped = False

    @property
    def dsn(self) -> str:
        if self.root is None:
            raise RuntimeError("TemporaryServer is not running")
        return f"host={self.root} dbname=postgres user=ragward"

    def _binary(self, program: str) -> str:
        if self.bindir is not None:
            return str(self.bindir / program)
        initdb = shutil.which("initdb")
        if initdb is None:
            raise RuntimeError("initdb is not on PATH (install PostgreSQL's server)")
        return str(Path(initdb).resolve().parent / program)

    def _spawn(self, root: Path, program: str, *args: str, log: str) -> subprocess.Popen[bytes]:
        """Start ``program`` in a session of its own, its output to ``root/log``; refused
        once :meth:`stop` has run, so a start on another thread stops there."""
        uid: int | None = None
        gid: int | None = None
        groups: list[int] | None = None
        if os.geteuid() == 0:
            entry = pwd.getpwnam(self.user)
            uid, gid, groups = entry.pw_uid, entry.pw_gid, []
        with self._lock, deferred():
            if self._stopped:
                raise RuntimeError("the temporary PostgreSQL server was stopped while starting")
            with open(root / log, "ab") as out:
                self._child = subprocess.Popen(
                    [self._binary(program), *args],
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    cwd=root,
                    start_new_session=True,
                    user=uid,
                    group=gid,
                    extra_groups=groups,
                )
            self._program = program
            return self._child

    def start(self) -> TemporaryServer:
        """Initialise and start the cluster; on any failure or Ctrl-C nothing is left."""
        with self._lock, deferred():  # the directory is never made without its removal
            self._stopped = False
            root = _made_for_this_process("ragward-pg-", self)
            on_interrupt(id(self), self._halt)
        try:
            if os.geteuid() == 0:
                shutil.chown(root, self.user, self.user)
            data = str(root / "data")
            options = ("-U", "ragward", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8")
            initdb = self._spawn(
                root, "initdb", "-D", data, *options, "--no-sync", log="initdb.log"
            )
            if initdb.wait() != 0:
                raise RuntimeError(f"initdb failed: {_tail(root / 'initdb.log')}")
            settings = ("listen_addresses=", "fsync=off", "synchronous_commit=off")
            server = [part for setting in settings for part in ("-c", setting)]
            postmaster = self._spawn(root, "postgres", "-D", data, "-k", str(root), *server,
                                     log="log")  # fmt: skip
            self._wait_ready(root, postmaster)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, root: Path, postmaster: subprocess.Popen[bytes]) -> None:
        """Wait until ``postmaster.pid`` says ready (what ``pg_ctl start -w`` waits for)."""
        deadline = time.monotonic() + START_SECONDS
        while True:
            if postmaster.poll() is not None:
                raise RuntimeError(f"postgres failed: {_tail(root / 'log')}")
            with contextlib.suppress(OSError):
                lines = (root / "data" / "postmaster.pid").read_text().splitlines()
                if lines[:1] == [str(postmaster.pid)] and [s.strip() for s in lines[7:8]] == [
                    "ready"
                ]:
                    return
            if self._stopped:
                raise RuntimeError("the temporary PostgreSQL server was stopped while starting")
            if time.monotonic() > deadline:
                raise RuntimeError(f"postgres was not ready within {START_SECONDS:g} s")
            time.sleep(0.01)

    def stop(self) -> None:
        """Stop the cluster (fast shutdown) and remove its directory, from any thread and
        at any point of :meth:`start`; idempotent."""
        with self._lock:
            self._stopped = True
            root, self.root = self.root, None
            child, program = self._child, self._program
        if root is None:
            return
        if child is not None and child.poll() is None:
            if program == "postgres":
                child.send_signal(signal.SIGINT)  # fast shutdown: sessions ended, no wait
            else:
                _kill_group(child)
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(STOP_SECONDS)
        if child is not None:
            _kill_group(child)  # a postmaster's backends left behind, or one too slow
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(STOP_SECONDS)
        shutil.rmtree(root, ignore_errors=True)
        on_interrupt(id(self), None)
        self._dir = None
        with _exit_lock:
            _live.discard(self)
            with contextlib.suppress(ValueError):
                _folders.remove(root)

    def _halt(self) -> None:
        """The process ends at once (a second Ctrl-C): kill what runs, remove the directory."""
        child, root = self._child, self._dir
        if child is not None:
            _kill_group(child)
            with contextlib.suppress(Exception):
                child.wait(1.0)
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)

    def __enter__(self) -> TemporaryServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    """SIGKILL ``child``'s process group (it leads one of its own) unless it was reaped,
    when its group id may already be someone else's."""
    if child.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)


def _tail(log: Path) -> str:
    """The last lines of a log, for the error that names the failure."""
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " / ".join(lines[-5:]) or "(empty log)"
