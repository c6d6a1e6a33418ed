"""Time limits on every call into an in-process implementation.

An engine that hangs (a lock never released, a server that stopped answering, an index
build that never ends) must give the kit a verdict with a reason, never a silent hang.
:func:`guarded` wraps a factory so that the factory itself and every call on the systems
it builds run on one worker thread and are waited for at most ``seconds``; a call that
does not return in time raises :class:`CallTimeout` in the kit's thread.

All calls of a guarded factory run on the *same* worker thread, in order: engines whose
handles may not cross threads (an embedded engine's objects, a database connection) see
one thread, as they would in a plain run. A thread cannot be killed, so the call that
timed out is left running on its (daemon) thread and the next call starts a new worker;
systems built on the abandoned worker are not used again by the kit, because every
example builds its own.

:class:`CallTimeout` derives from :class:`BaseException`, like :class:`KeyboardInterrupt`:
hypothesis then stops at once instead of retrying and shrinking the case, each attempt
costing the full limit again.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ragward.conformance.contract import Factory, RetrievalSystem

__all__ = ["DEFAULT_CALL_TIMEOUT", "CallTimeout", "GuardedFactory", "guarded", "left_running"]

#: Seconds any one call into an in-process implementation may take, by default.
DEFAULT_CALL_TIMEOUT = 60.0

T = TypeVar("T")

#: The worker threads whose call timed out, left running (a thread cannot be killed).
_ABANDONED: list[threading.Thread] = []


def left_running() -> bool:
    """Whether a call the guard gave up on is still running in this process: its thread
    may hold locks and memory that the interpreter's exit tears down under it (DuckDB's
    C++ ends such a process with ``std::terminate``, exit 134, whatever the verdict)."""
    return any(thread.is_alive() for thread in _ABANDONED)


class CallTimeout(BaseException):
    """A call into the implementation did not return within the time limit."""


class _Worker:
    """One daemon thread running submitted calls in order."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue[Any]] | None]
        self._jobs = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="ragward-guard", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while (job := self._jobs.get()) is not None:
            call, answer = job
            try:
                answer.put((True, call()))
            except BaseException as error:  # handed to the caller, whatever it is
                answer.put((False, error))

    def run(self, call: Callable[[], T], seconds: float, what: str) -> T:
        answer: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._jobs.put((call, answer))
        try:
            ok, value = answer.get(timeout=seconds)
        except queue.Empty:
            raise CallTimeout(
                f"{what} did not return within {seconds:g} s (left running in the background)"
            ) from None
        if ok:
            return value  # type: ignore[no-any-return]
        raise value

    def stop(self) -> None:
        self._jobs.put(None)  # ends the loop once the calls before it are done


class _Guard:
    """The worker shared by a guarded factory and its systems; replaced after a timeout."""

    def __init__(self, seconds: float) -> None:
        if not seconds > 0:
            raise ValueError(f"the call time limit must be positive, got {seconds!r}")
        self.seconds = seconds
        self._worker: _Worker | None = None
        self._lock = threading.Lock()

    def run(self, call: Callable[[], T], what: str) -> T:
        if threading.current_thread() is getattr(self._worker, "thread", None):
            return call()  # a call made from inside a guarded call (a nested verb)
        with self._lock:
            if self._worker is None:
                self._worker = _Worker()
            worker = self._worker
        try:
            return worker.run(call, self.seconds, what)
        except CallTimeout:
            with self._lock:
                if self._worker is worker:
                    self._worker = None  # abandon the hung thread; the next call gets a new one
                    _ABANDONED.append(worker.thread)
            raise

    def close(self) -> None:
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()


class _GuardedSystem:
    """A system whose every method call goes through the guard."""

    def __init__(self, system: Any, guard: _Guard, name: str) -> None:
        self._system = system
        self._guard = guard
        self._name = name

    @property
    def capabilities(self) -> Any:
        return self._guard.run(lambda: self._system.capabilities, f"{self._name}.capabilities")

    def __getattr__(self, verb: str) -> Any:
        target = getattr(self._system, verb)
        if not callable(target):
            return target

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._guard.run(lambda: target(*args, **kwargs), f"{self._name}.{verb}()")

        return call


class GuardedFactory:
    """``factory`` with the factory and every call on its systems limited in time; call
    :meth:`close` when done, to end its worker thread (a hung one is left to the process)."""

    def __init__(self, factory: Factory, seconds: float) -> None:
        self._factory = factory
        self._guard = _Guard(seconds)
        self.__name__ = getattr(factory, "__name__", "factory")
        self.__qualname__ = getattr(factory, "__qualname__", self.__name__)

    @property
    def inner(self) -> Factory:
        """The factory this one limits."""
        return self._factory

    def __call__(self) -> RetrievalSystem:
        system = self._guard.run(self._factory, f"{self.__name__}()")
        return _GuardedSystem(system, self._guard, type(system).__name__)

    def close(self) -> None:
        self._guard.close()


def guarded(factory: Factory, seconds: float = DEFAULT_CALL_TIMEOUT) -> GuardedFactory:
    """``factory``, with the factory and every call on its systems limited to ``seconds``."""
    return GuardedFactory(factory, seconds)
