"""Time limits on calls into an in-process implementation (``ragward.conformance.guard``)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.cli import main
from ragward.conformance import Capabilities, run_conformance
from ragward.conformance.guard import CallTimeout, guarded
from ragward.conformance.invariant import REGISTRY
from ragward.conformance.runner import run_invariant
from ragward.engines.reference import reference_factory


class Hangs:
    """Hangs in ``retrieve`` (the other verbs are the reference's)."""

    def __init__(self) -> None:
        self.inner = reference_factory()
        self.capabilities = self.inner.capabilities

    def ingest(self, doc: Any) -> bool:
        return self.inner.ingest(doc)

    def delete(self, tenant: str, doc_id: str) -> None:
        self.inner.delete(tenant, doc_id)

    def retrieve(self, *args: Any) -> Any:
        time.sleep(30)
        return self.inner.retrieve(*args)


def hangs() -> Hangs:
    return Hangs()


def test_a_hanging_call_is_an_error_verdict_with_the_reason() -> None:
    started = time.perf_counter()
    verdict = run_invariant(REGISTRY["ISO-001"], hangs, call_timeout=0.3)
    elapsed = time.perf_counter() - started
    assert verdict.status == "error"
    assert "Hangs.retrieve() did not return within 0.3 s" in verdict.reason
    assert verdict.counterexample is not None  # the case that hung, to replay
    assert elapsed < 5  # one wait, no retries or shrinking at 0.3 s each


def test_the_run_goes_on_after_a_hang() -> None:
    report = run_conformance(hangs, select=["ISO-001", "PROV-001"], call_timeout=0.3)
    assert [v.status for v in report.verdicts] == ["error", "error"]


def test_the_factory_and_every_call_run_on_one_thread() -> None:
    threads: set[int] = set()

    class Records:
        capabilities = Capabilities(modes=("lexical",))

        def __init__(self) -> None:
            threads.add(threading.get_ident())

        def ingest(self, doc: Any) -> bool:
            threads.add(threading.get_ident())
            return True

    factory = guarded(Records, 5)  # type: ignore[arg-type]
    for _ in range(3):
        system: Any = factory()
        system.ingest(None)
    assert len(threads) == 1
    assert threading.get_ident() not in threads


def test_an_exception_of_the_implementation_reaches_the_kit_unchanged() -> None:
    class Fails:
        capabilities = Capabilities()

        def ingest(self, doc: Any) -> bool:
            raise KeyError("boom")

    system: Any = guarded(Fails, 5)()  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="boom"):
        system.ingest(None)


def test_a_new_worker_serves_the_calls_after_a_timeout() -> None:
    class Slow:
        capabilities = Capabilities()

        def ingest(self, seconds: float) -> bool:
            time.sleep(seconds)
            return True

    factory = guarded(Slow, 0.2)  # type: ignore[arg-type]
    system: Any = factory()
    with pytest.raises(CallTimeout):
        system.ingest(5)
    again: Any = factory()
    assert again.ingest(0) is True  # not queued behind the hung call


def test_a_hanging_factory_is_one_line_from_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        [
            "conform",
            "--impl",
            "tests.conformance.test_guard:sleeping_factory",
            "--call-timeout",
            "0.2",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "sleeping_factory(): sleeping_factory() did not return within 0.2 s" in err


def test_the_call_timeout_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["conform", "--call-timeout", "0"])
    assert stop.value.code == 2
    assert "expected a positive number of seconds" in capsys.readouterr().err


def sleeping_factory() -> Any:
    time.sleep(30)
    return reference_factory()


class SlowLeak:
    """Ignores barriers (a leak), and takes a while to answer."""

    def __init__(self) -> None:
        from tests.conformance.broken import BarriersIgnored

        self.inner = BarriersIgnored()
        self.capabilities = self.inner.capabilities

    def __getattr__(self, verb: str) -> Any:
        return getattr(self.inner, verb)

    def retrieve(self, *args: Any) -> Any:
        time.sleep(0.05)
        return self.inner.retrieve(*args)


def test_shrinking_stops_when_its_budget_is_spent() -> None:
    started = time.perf_counter()
    verdict = run_invariant(REGISTRY["ISO-001"], SlowLeak, shrink_budget=0.5)
    elapsed = time.perf_counter() - started
    assert verdict.status == "fail"
    assert "shrinking stopped after its 0.5 s budget" in verdict.reason
    assert verdict.counterexample is not None
    assert elapsed < 20


_built = 0


def flickers() -> Any:
    """The first systems ignore barriers, later ones do not: a case fails, then passes."""
    from tests.conformance.broken import BarriersIgnored

    global _built
    _built += 1
    return BarriersIgnored() if _built <= 40 else reference_factory()


def test_an_unstable_answer_is_a_failure_marked_flaky() -> None:
    verdict = run_invariant(REGISTRY["ISO-001"], flickers, shrink_budget=60.0)
    assert verdict.status == "fail"
    assert "flaky: the same case passed when run again" in verdict.reason
    assert verdict.counterexample is not None


def test_no_worker_thread_outlives_its_invariant() -> None:
    before = threading.active_count()
    run_conformance(reference_factory, select=["ISO-001", "ISO-003", "PRE-004", "DET-001"])
    time.sleep(0.2)  # each worker ends once its queue's stop is read
    assert threading.active_count() <= before + 1


_ABORTS_AT_EXIT = '''
import ctypes, threading, time
from ragward.engines.reference import reference_factory

class Stuck:
    """Its retrieve never returns and, like DuckDB's C++ under a call still running, it
    aborts the C library's exit (after Python's own)."""

    def __init__(self):
        self.inner = reference_factory()
        self.capabilities = self.inner.capabilities

    def ingest(self, doc):
        return self.inner.ingest(doc)

    def delete(self, tenant, doc_id):
        self.inner.delete(tenant, doc_id)

    def retrieve(self, *args):
        libc = ctypes.CDLL(None)  # abort() at the C library's exit, as a C++ destructor
        on_exit = getattr(libc, "__cxa_atexit")  # by name: a class would mangle it
        on_exit(ctypes.cast(libc.abort, ctypes.c_void_p), None, None)
        while True:
            time.sleep(1)

def factory():
    return Stuck()
'''


@pytest.mark.slow
def test_a_call_left_running_does_not_change_the_exit_code(tmp_path: Any) -> None:
    """The kit gives a call that never returns an error verdict and leaves it on its
    thread; the process then ends with the verdict's code, past an exit that the running
    call turns into an abort (134 before; DuckDB's vss did so in the engine matrix)."""
    import subprocess
    import sys

    impl = tmp_path / "stuck.py"
    impl.write_text(_ABORTS_AT_EXIT, encoding="utf-8")
    command = [sys.executable, "-m", "ragward", "conform", "--impl", f"{impl}:factory"]
    command += ["--select", "ISO-001", "--call-timeout", "0.5", "--json", str(tmp_path / "r.json")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "ISO-001 error" in done.stdout + done.stderr
    assert '"error": 1' in (tmp_path / "r.json").read_text(encoding="utf-8")
