"""The Milvus adapter through a server's address, set up as an operator would: the
``milvus-lite server`` command on a loopback port over a data directory of its own,
``RAGWARD_MILVUS_URI`` pointing at it, a few of the kit's invariants run through
``ragward conform``, then the server stopped and nothing left running or stored."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines import milvus as engine
from ragward.engines.milvus_client import release

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def lite_server(tmp_path: Path) -> Iterator[str]:
    """``milvus-lite server`` (its console script's module) on a free loopback port,
    stopped with SIGINT (its documented way out) whatever the test did."""
    port = _free_port()
    command = [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(tmp_path)]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not _listening(port):
            assert process.poll() is None, "milvus-lite server exited at start"
            assert time.monotonic() < deadline, "milvus-lite server did not listen in 60 s"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    assert process.returncode == 0
    assert not _listening(port)


def _conform(server: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    impl = "ragward.engines.milvus:server"
    return subprocess.run(
        [sys.executable, "-m", "ragward", "conform", "--impl", impl, *arguments],
        cwd=ROOT,
        env={**os.environ, "RAGWARD_MILVUS_URI": server},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_kit_through_a_milvus_lite_server(lite_server: str) -> None:
    selected = "ISO-004,PRE-002"
    run = _conform(lite_server, "--select", selected)
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    for invariant in selected.split(","):
        assert f"{invariant} pass" in run.stderr, invariant
    # The in-process column's hybrid finding, replayed through the server: the same defect.
    pinned = ROOT / "reports" / "engines" / "findings" / "milvus-partition_key.json"
    replayed = _conform(lite_server, "--replay", str(pinned), "--invariant", "LIFE-003")
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr[-2000:]
    assert "counts (0, 0, 0)" in replayed.stdout
    # Each kit process dropped every collection it made, at exit.
    from pymilvus import MilvusClient

    client = MilvusClient(uri=lite_server)
    try:
        assert client.list_collections() == []
    finally:
        client.close()


def test_a_server_system_answers_as_the_in_process_one(lite_server: str) -> None:
    remote = engine.server(uri=lite_server)
    local = engine.partition_key()
    docs = [Doc("acme", "d1", "payment ledger"), Doc("acme", "d2", "payment wire note")]
    for system in (remote, local):
        assert system.ingest_many(docs) == (True, True)
    client = remote.client
    assert len(client.list_collections()) == 2  # chunks and versions
    for mode in ("lexical", "dense", "hybrid"):
        a = remote.retrieve("payment", Asker("u", "acme"), 0, Policy(mode=mode))
        b = local.retrieve("payment", Asker("u", "acme"), 0, Policy(mode=mode))
        assert a == b, mode
    # Released before the server stops: its collections dropped, nothing left for exit.
    from pymilvus import MilvusClient

    release(lite_server)
    observer = MilvusClient(uri=lite_server)
    try:
        assert observer.list_collections() == []
    finally:
        observer.close()
