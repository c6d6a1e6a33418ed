"""The Chroma adapter: fresh systems, upserts, deletes, the view as a ``where`` filter,
ragward's vectors in a cosine HNSW collection, telemetry off, and the same adapter
against a Chroma server started here as an operator would (``chroma run``)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

import pytest

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines import chroma as engine
from ragward.engines import find
from ragward.engines.common import View
from ragward.errors import MissingExtra, RagwardError

pytest.importorskip("chromadb")

ROOT = Path(__file__).resolve().parents[2]
ALICE = Asker("alice", "acme")
DENSE = Policy(mode="dense")
FACTORIES = [engine.shared, engine.per_tenant]


def _ids(system: engine.ChromaSystem, query: str, asker: Asker = ALICE) -> list[str]:
    return [h.chunk_id for h in system.retrieve(query, asker, 0, DENSE).hits]


def test_configurations_name_their_factories() -> None:
    assert [c.name for c in engine.CONFIGURATIONS] == ["shared", "per_tenant", "server"]
    for configuration in engine.CONFIGURATIONS:
        assert configuration.extra == "chroma"
        assert find(configuration.impl) == configuration
    assert [c.in_matrix for c in engine.CONFIGURATIONS] == [True, True, False]
    assert engine.shared().per_tenant is False
    assert engine.per_tenant().per_tenant is True
    assert engine.shared().capabilities.modes == ("dense",)


def test_the_extra_pins_the_version_judged() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pinned = extras["optional-dependencies"]["chroma"]
    assert pinned == [f"chromadb=={metadata.version('chromadb')}"] == ["chromadb==1.5.9"]


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "chromadb", None)
    monkeypatch.setattr(engine._Clients, "_clients", {})
    with pytest.raises(MissingExtra, match=r"pip install 'ragward\[chroma\]'"):
        engine.shared()


@pytest.mark.filterwarnings("ignore:legacy embedding function config:DeprecationWarning")
def test_telemetry_is_off_and_chroma_embeds_nothing_itself() -> None:
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    assert _ids(system, "payment") == ["d1::1"]
    client = engine._Clients.client("memory")
    assert client.get_settings().anonymized_telemetry is False
    (collection,) = system._collections.values()
    assert collection.collection.configuration_json["hnsw"]["space"] == "cosine"
    # No embedding function: a record without ragward's vector is refused, never embedded
    # by a model Chroma would download.
    with pytest.raises(ValueError, match="must provide an embedding function"):
        collection.collection.add(ids=["x"], documents=["payment"])


@pytest.mark.parametrize("factory", FACTORIES)
def test_upsert_delete_and_stale_versions(factory: Callable[[], engine.ChromaSystem]) -> None:
    system = factory()
    assert system.ingest(Doc("acme", "d1", "payment ledger", version=2))
    assert not system.ingest(Doc("acme", "d1", "payment wire", version=2))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    hits = system.retrieve("invoice", ALICE, 0, DENSE).hits
    assert [(h.chunk_id, h.version, h.text) for h in hits] == [("d1::1", 3, "invoice wire")]
    system.delete("acme", "d1")
    assert _ids(system, "invoice") == []
    assert not system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=4))
    assert _ids(system, "invoice") == ["d1::1"]
    assert factory().retrieve("invoice", ALICE, 0, DENSE).hits == ()


@pytest.mark.parametrize("factory", FACTORIES)
def test_each_factory_call_is_a_fresh_collection(
    factory: Callable[[], engine.ChromaSystem],
) -> None:
    first, second = factory(), factory()
    first.ingest(Doc("acme", "d1", "payment ledger"))
    assert _ids(first, "payment") == ["d1::1"]
    assert _ids(second, "payment") == []
    assert second.ingest(Doc("acme", "d1", "payment ledger"))


@pytest.mark.parametrize("factory", FACTORIES)
def test_the_view_is_the_where_filter(factory: Callable[[], engine.ChromaSystem]) -> None:
    system = factory()
    system.ingest(Doc("acme", "d1", "payment ledger", updated_tick=5))
    system.ingest(Doc("acme", "d2", "payment ledger", classification="restricted"))
    system.ingest(Doc("acme", "d3", "payment ledger", barrier="deal-x", updated_tick=5))
    system.ingest(Doc("acme", "d4", "payment ledger", updated_tick=1))
    system.ingest(Doc("globex", "d1", "payment ledger"))
    system.ingest(Doc("a\x00b", "d1", "payment ledger"))
    hits = system.retrieve("payment ledger", ALICE, 6, Policy(mode="dense", max_stale_ticks=2))
    assert [h.chunk_id for h in hits.hits] == ["d1::1"]
    assert hits.hits[0].score == pytest.approx(1.0)
    inside = Asker("bo", "acme", max_classification="restricted", barriers=("deal-x",))
    assert sorted(_ids(system, "payment", inside)) == ["d1::1", "d2::1", "d3::1", "d4::1"]
    assert _ids(system, "payment", Asker("u", "a\x00b")) == ["d1::1"]
    assert _ids(system, "payment", Asker("u", "a")) == []


def test_the_where_filter() -> None:
    view = View("acme", 1, ("hr",), 4)
    assert engine.view_where(view) == {
        "$and": [
            {"tenant": {"$eq": "acme"}},
            {"level": {"$lte": 1}},
            {"barrier": {"$in": ["-", "=hr"]}},
            {"tick": {"$gte": 4}},
        ]
    }
    assert engine.view_where(View("acme", 0, (), None), tenant=False) == {
        "$and": [{"level": {"$lte": 0}}, {"barrier": {"$in": ["-"]}}]
    }


def test_limits_are_the_engines_n_results() -> None:
    system = engine.shared()
    for n in range(5):
        system.ingest(Doc("acme", f"d{n}", "payment " + "word " * n))
    wide = system.retrieve("payment", ALICE, 0, DENSE).hits
    assert len(wide) == 5
    tight = Policy(mode="dense", candidate_limit=2, result_limit=1)
    assert [h.chunk_id for h in system.retrieve("payment", ALICE, 0, tight).hits] == [
        wide[0].chunk_id
    ]


def test_collections_go_to_the_path_given(tmp_path: Path) -> None:
    system = engine.shared(path=str(tmp_path))
    system.ingest(Doc("acme", "d1", "payment held"))
    assert _ids(system, "payment") == ["d1::1"]
    assert (tmp_path / "chroma.sqlite3").exists()


def test_the_server_configuration_needs_an_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGWARD_CHROMA_URL", raising=False)
    with pytest.raises(RagwardError, match="RAGWARD_CHROMA_URL"):
        engine.server()
    with pytest.raises(RagwardError, match=r"http\(s\)://host\[:port\]"):
        engine.server(url="localhost:8000")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``chroma run`` (the server the chromadb package ships) on a free local port, with
    its data in a temporary directory; stopped here, also on failure."""
    command = shutil.which("chroma", path=os.path.dirname(sys.executable))
    if command is None:
        pytest.skip("the chroma command is not installed beside this Python")
    port = _free_port()
    data = tmp_path_factory.mktemp("chroma-server")
    with (data / "server.log").open("wb") as log:
        address = ["--host", "127.0.0.1", "--port", str(port)]
        server = subprocess.Popen(
            [command, "run", "--path", str(data / "db"), *address],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, (data / "server.log").read_text(errors="replace")
            assert time.monotonic() < deadline, "chroma run did not listen within 30 s"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_same_adapter_reaches_a_chroma_server(
    chroma_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGWARD_CHROMA_URL", chroma_server)
    for system in (engine.server(), engine.server(per_tenant=True)):
        assert system.ingest(Doc("acme", "d1", "payment ledger"))
        system.ingest(Doc("acme", "d2", "payment secret", classification="restricted"))
        system.ingest(Doc("globex", "d1", "payment ledger"))
        assert _ids(system, "payment ledger") == ["d1::1"]
        system.delete("acme", "d1")
        assert _ids(system, "payment ledger") == []
        assert not system.ingest(Doc("acme", "d1", "payment ledger"))


def test_after_deletes_a_score_is_rounded_another_way() -> None:
    """With more than a fifth of a small index deleted, Chroma 1.5.9 answers by brute force
    (``rust/segment/src/local_hnsw.rs``, ``query_embedding``: ``delete_percentage > 0.2
    && actual_len < 100``), normalising the stored vector again and computing the
    distance in Rust, where hnswlib computed it before: the same chunk's cosine moves in
    its last bits (the kit's LIFE-003). The adapter passes the engine's distance on."""
    fresh = engine.shared()
    fresh.ingest(Doc("acme", "d2", "qx p"))
    (alone,) = fresh.retrieve("p", ALICE, 0, DENSE).hits
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "q"))
    system.ingest(Doc("acme", "d2", "qx p"))
    (before,) = [h for h in system.retrieve("p", ALICE, 0, DENSE).hits if h.doc_id == "d2"]
    system.delete("acme", "d1")
    (after,) = system.retrieve("p", ALICE, 0, DENSE).hits
    assert alone.score == before.score == pytest.approx(0.5**0.5, abs=1e-7)
    assert after.score != alone.score
    assert after.score == pytest.approx(alone.score, rel=1e-6)


def test_which_of_two_identical_chunks_the_cut_keeps_changes_from_build_to_build() -> None:
    """Chroma 1.5.9 adds a batch to its HNSW graph in parallel over a ``HashMap``
    (``local_hnsw.rs``, ``apply_log_chunk``: ``hnsw_batch.into_par_iter()``), so the
    graph, and which of two equal vectors a one-result search keeps, differs between
    collections built alike (behind the kit's tie failures: DET-003, DET-005, PRE-001,
    PRE-006, STAT-002)."""
    kept = set()
    for _ in range(24):
        system = engine.per_tenant()
        system.ingest(Doc("acme", "r", "H\nq\n## H\nq"))  # two identical sections
        tight = Policy(mode="dense", candidate_limit=1, result_limit=1)
        (hit,) = system.retrieve("H q", ALICE, 0, tight).hits
        kept.add(hit.chunk_id)
    assert kept == {"r::1", "r::2"}
