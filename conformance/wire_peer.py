"""One peer process and the request/response loop with it, as the wire protocol says.

See :mod:`ragward.conformance.wire` for the protocol; :class:`Peer` frames requests,
checks each response against the pending request, enforces the per-call timeout and
turns every way a peer can misbehave into a one-line :class:`WireError`.
"""

from __future__ import annotations

import collections
import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any, NoReturn, TypeVar

from ragward.clipped import clip
from ragward.conformance.contract import Capabilities
from ragward.conformance.wire_format import (
    DEFAULT_TIMEOUT,
    PROTOCOL_VERSION,
    PeerError,
    WireError,
    decode,
    dumps,
    label,
    quote,
)
from ragward.interrupts import interrupted, on_interrupt
from ragward.parsing import Unparsable, parse_json

__all__ = ["Peer"]

T = TypeVar("T")

_MAX_LINE = 64 << 20  # a response longer than this is garbage, not a slow result
_STDERR_LINES = 5


class Peer:
    """One peer process and the request/response loop with it; not thread-safe.

    Starting it sends ``hello``; :attr:`capabilities` holds the answer.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float | None = None,
    ) -> None:
        self.command = tuple(command)
        self.timeout = timeout
        self.label = label(self.command)
        self.failure: str | None = None
        self._next_id = 0
        self._buffer = bytearray()
        self._stderr: collections.deque[str] = collections.deque(maxlen=50)
        try:
            self._process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,
            )
        except OSError as error:
            raise WireError(f"cannot start peer {self.label}: {error}") from None
        on_interrupt(id(self), self._kill_now)  # a second Ctrl-C stops it with the process
        assert self._process.stdin
        assert self._process.stdout
        assert self._process.stderr
        self._in = self._process.stdin.fileno()
        self._out = self._process.stdout.fileno()
        os.set_blocking(self._in, False)
        self._readable = selectors.DefaultSelector()
        self._readable.register(self._out, selectors.EVENT_READ)
        self._drain = threading.Thread(
            target=_drain, args=(self._process.stderr, self._stderr), daemon=True
        )
        self._drain.start()
        self.capabilities = self._hello(timeout if startup_timeout is None else startup_timeout)

    @property
    def alive(self) -> bool:
        """Whether the peer can still be sent requests."""
        return self.failure is None

    def call(self, op: str, args: dict[str, Any], read: Callable[[Any], T]) -> T:
        """Send ``op`` and return its result converted by ``read``.

        ``read`` raises :class:`TypeError` or :class:`ValueError` on a result of the wrong
        shape. Raises :class:`PeerError` on an error response, :class:`WireError` otherwise.
        """
        return self._call(op, args, read, self.timeout)

    def close(self) -> None:
        """End the peer: close its stdin, give it a moment to exit, then kill it; after
        Ctrl-C, kill it at once (the user is waiting)."""
        if self.failure is None:
            self.failure = "was closed"
        if interrupted():
            self._kill()
        if self._process.poll() is None:
            assert self._process.stdin
            try:
                self._process.stdin.close()
                self._process.wait(timeout=1.0)
            except (OSError, subprocess.TimeoutExpired):
                self._kill()
        self._release()

    def _hello(self, timeout: float) -> Capabilities:
        try:
            return self._call("hello", {}, _capabilities, timeout)
        except PeerError as error:
            self._fail(f"refused hello: {error.kind}: {error.detail}")
        except WireError as error:
            if self.failure is None:  # malformed capabilities: no use keeping the peer
                self.close()
                self.failure = str(error).removeprefix(f"peer {self.label} ")
            raise

    def _call(self, op: str, args: dict[str, Any], read: Callable[[Any], T], timeout: float) -> T:
        if self.failure is not None:
            raise WireError(f"peer {self.label} cannot be used: {self.failure}")
        self._next_id += 1
        request_id = self._next_id
        where = f"{op} (request {request_id})"
        deadline = time.monotonic() + timeout
        request = {"ragward": PROTOCOL_VERSION, "id": request_id, "op": op, "args": args}
        self._send((dumps(request) + "\n").encode("ascii"), where, deadline, timeout)
        line = self._receive(where, deadline, timeout)
        message = self._envelope(line, where, request_id)
        if message["ok"]:
            try:
                return read(message["result"])
            except (TypeError, ValueError) as error:
                problem = f"answered {where} with a malformed result ({clip(error)}): {quote(line)}"
                raise WireError(f"peer {self.label} {problem}") from None
        # The peer's words, bounded: a message of megabytes is cut, its length said.
        kind, detail = clip(message["error"]["kind"], 40), clip(message["error"]["message"])
        detail = " ".join(detail.split())  # a peer's message is shown on one spaced line
        if op == "hello" and kind == "version":
            self._fail(f"refused ragward wire protocol version {PROTOCOL_VERSION}: {detail}")
        problem = f"peer {self.label} failed {where}: {kind}: {detail}"
        raise PeerError(problem, op=op, kind=kind, detail=detail)

    def _envelope(self, line: bytes, where: str, request_id: int) -> dict[str, Any]:
        """The parsed response line, checked to be a well-formed answer to ``request_id``."""
        try:
            message = parse_json(line)
        except Unparsable as error:
            self._fail(f"answered {where} with a line that is not JSON ({error}): {quote(line)}")
        if not isinstance(message, dict):
            self._fail(f"answered {where} with JSON that is not an object: {quote(line)}")
        version = message.get("ragward")
        if version is None:
            self._fail(f"answered {where} without the field 'ragward': {quote(line)}")
        if version != PROTOCOL_VERSION or isinstance(version, bool):
            self._fail(
                f"speaks ragward wire protocol version {version!r}, this driver speaks version "
                f"{PROTOCOL_VERSION} (answering {where}): upgrade one side"
            )
        if message.get("id") != request_id or isinstance(message.get("id"), bool):
            self._fail(f"answered {where} with id {message.get('id')!r}: {quote(line)}")
        ok, problem = message.get("ok"), message.get("error")
        if ok is True and "result" not in message:
            self._fail(f"answered {where} with ok true but no result: {quote(line)}")
        if ok is False and not (
            isinstance(problem, dict)
            and isinstance(problem.get("kind"), str)
            and isinstance(problem.get("message"), str)
        ):
            self._fail(
                f"answered {where} with ok false but no error kind and message: {quote(line)}"
            )
        if not isinstance(ok, bool):
            self._fail(f"answered {where} without a boolean ok: {quote(line)}")
        return message

    def _send(self, data: bytes, where: str, deadline: float, timeout: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._in, view) :]
            except BlockingIOError:
                with selectors.DefaultSelector() as writable:
                    writable.register(self._in, selectors.EVENT_WRITE)
                    if not writable.select(deadline - time.monotonic()):
                        self._timed_out(where, timeout)
            except BrokenPipeError:
                self._exited(where)

    def _receive(self, where: str, deadline: float, timeout: float) -> bytes:
        scanned = 0
        while True:
            end = self._buffer.find(b"\n", scanned)
            if end >= 0:
                line = bytes(self._buffer[:end]).rstrip(b"\r")
                del self._buffer[: end + 1]
                scanned = 0
                if line.strip():
                    return line
                continue
            scanned = len(self._buffer)
            if scanned > _MAX_LINE:
                head = quote(bytes(self._buffer[:200]))
                self._fail(f"answered {where} with a line over {_MAX_LINE} bytes: {head}")
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._readable.select(remaining):
                self._timed_out(where, timeout)
            chunk = os.read(self._out, 1 << 16)
            if not chunk:
                self._exited(where)
            self._buffer += chunk

    def _timed_out(self, where: str, timeout: float) -> NoReturn:
        self._fail(f"did not answer {where} within {timeout:g} s; killed it")

    def _exited(self, where: str) -> NoReturn:
        try:
            code = self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self._fail(f"closed its stdout while answering {where}; killed it")
        status = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        partial = f" after writing {quote(bytes(self._buffer))}" if self._buffer.strip() else ""
        self._fail(f"{status} while answering {where}{partial}")

    def _fail(self, message: str) -> NoReturn:
        """Kill the peer and raise :class:`WireError` with ``message`` and its stderr tail."""
        self._kill()
        self._drain.join(timeout=1.0)
        self._release()
        tail = [line for line in self._stderr if line.strip()][-_STDERR_LINES:]
        suffix = (
            "; stderr ends: " + " | ".join(quote(line, 160) for line in tail)
            if tail
            else "; no stderr output"
        )
        self.failure = message + suffix
        raise WireError(f"peer {self.label} {self.failure}")

    def _kill(self) -> None:
        if self._process.poll() is None:
            self._kill_now()
            self._process.wait()

    def _kill_now(self) -> None:
        """SIGKILL to the peer's process group (it and what it started), not waited for."""
        try:
            os.killpg(self._process.pid, signal.SIGKILL)
        except OSError:
            with contextlib.suppress(OSError):
                self._process.kill()

    def _release(self) -> None:
        if self._process.poll() is not None:
            on_interrupt(id(self), None)
        if self._readable.get_map() is not None:
            self._readable.close()
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _drain(stream: IO[bytes], tail: collections.deque[str]) -> None:
    """Keep the last lines of the peer's stderr, so the pipe never fills up."""
    try:
        for raw in iter(lambda: stream.readline(4096), b""):
            tail.append(raw.decode("utf-8", "replace").rstrip())
    except (OSError, ValueError):
        pass
    finally:
        stream.close()


def _capabilities(data: Any) -> Capabilities:
    return decode(Capabilities, data, "capabilities")
