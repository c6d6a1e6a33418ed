"""The PostgreSQL adapter: temporary servers, row-level security, upsert, delete, fusion."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from ragward.conformance import Asker, Doc, Policy
from ragward.engines import postgres
from ragward.engines.common import settings_of
from ragward.errors import InvalidArgument, MissingExtra

pytest.importorskip("psycopg")

HYBRID = Policy(mode="hybrid", candidate_limit=10, result_limit=10)


@pytest.fixture(scope="module")
def database() -> Iterator[postgres.Database]:
    with postgres.TemporaryServer() as server:
        database = postgres.Database.bootstrap(server, pgvector=False)
        yield database
        database.connection.close()


@pytest.fixture
def system(database: postgres.Database) -> Iterator[postgres.PostgresSystem]:
    system = postgres.PostgresSystem(database, settings_of())
    yield system
    system.close()


def ids(
    system: postgres.PostgresSystem, query: str, asker: Asker, policy: Policy = HYBRID
) -> list[str]:
    return [hit.chunk_id for hit in system.retrieve(query, asker, 0, policy).hits]


def test_configurations_are_listed_and_addressable() -> None:
    names = [c.name for c in postgres.CONFIGURATIONS]
    assert names == ["rls", "pgvector_exact", "pgvector_hnsw", "dsn"]
    assert all(callable(getattr(postgres, name)) for name in names)
    assert [c.in_matrix for c in postgres.CONFIGURATIONS] == [True, True, True, False]
    assert postgres.CONFIGURATIONS[0].impl == "ragward.engines.postgres:rls"


def test_temporary_server_leaves_nothing_behind() -> None:
    server = postgres.TemporaryServer().start()
    root = server.root
    assert root is not None
    assert (root / "data" / "postmaster.pid").exists()
    server.stop()
    assert not root.exists()
    server.stop()  # idempotent


def test_tenants_sharing_a_doc_id_are_isolated(system: postgres.PostgresSystem) -> None:
    assert system.ingest(Doc("acme", "d1", "payment held for screening"))
    assert system.ingest(Doc("beta", "d1", "payment released at once"))
    result = system.retrieve("payment", Asker("u", "acme"), 0, HYBRID)
    assert [h.text for h in result.hits] == ["payment held for screening"]
    assert (result.considered, result.excluded_by_entitlement) == (1, 0)


def test_labels_are_enforced_by_row_level_security(system: postgres.PostgresSystem) -> None:
    system.ingest(Doc("acme", "open", "payment open", updated_tick=5))
    system.ingest(Doc("acme", "secret", "payment secret", classification="restricted"))
    system.ingest(Doc("acme", "desk", "payment desk", barrier="desk-a", updated_tick=5))
    system.ingest(Doc("acme", "old", "payment old", updated_tick=1))
    policy = Policy(candidate_limit=10, result_limit=10, max_stale_ticks=5)
    result = system.retrieve("payment", Asker("u", "acme"), 5, policy)
    assert sorted(h.doc_id for h in result.hits) == ["old", "open"]
    result = system.retrieve("payment", Asker("u", "acme", barriers=("desk-a",)), 7, policy)
    assert sorted(h.doc_id for h in result.hits) == ["desk", "open"]
    assert (result.considered, result.excluded_by_entitlement) == (4, 1)
    assert result.excluded_by_freshness == 1
    # The reader with no asker set sees nothing at all: the policies fail closed.
    with system.database.transaction() as cursor:
        cursor.execute(f"SET LOCAL ROLE {system.database.reader}".encode())
        cursor.execute(f"SELECT count(*) FROM {system.schema}.chunks".encode())
        assert cursor.fetchone() == (0,)


def test_upsert_replaces_and_versions_outlive_a_delete(system: postgres.PostgresSystem) -> None:
    asker = Asker("u", "acme")
    assert system.ingest(Doc("acme", "d1", "alpha words", version=2))
    assert not system.ingest(Doc("acme", "d1", "beta words", version=2))
    assert system.ingest(Doc("acme", "d1", "gamma words", version=3))
    assert [h.text for h in system.retrieve("words", asker, 0, HYBRID).hits] == ["gamma words"]
    system.delete("acme", "d1")
    assert ids(system, "words", asker) == []
    assert not system.ingest(Doc("acme", "d1", "late words", version=3))
    assert ids(system, "words", asker) == []
    assert system.ingest(Doc("beta", "d1", "beta words", version=1))  # per tenant


def test_ids_holding_nul_are_stored_apart(system: postgres.PostgresSystem) -> None:
    # PostgreSQL text refuses NUL; the adapter stores it escaped, and ids stay apart.
    assert system.ingest(Doc("a", "b\x00c", "payment held", barrier="x\x00y", version=3))
    assert system.ingest(Doc("a\x00b", "c", "payment held"))
    assert system.ingest(Doc("a", "b\x01\x01c", "payment held"))
    inside = Asker("u", "a", "internal", ("x\x00y",))
    hits = system.retrieve("payment", inside, 0, HYBRID).hits
    assert sorted((h.doc_id, h.chunk_id, h.version) for h in hits) == [
        ("b\x00c", "b\x00c::1", 3),
        ("b\x01\x01c", "b\x01\x01c::1", 1),
    ]
    assert ids(system, "payment", Asker("u", "a", "internal", ("x",))) == ["b\x01\x01c::1"]
    assert ids(system, "payment", Asker("u", "a\x00b")) == ["c::1"]
    assert not system.ingest(Doc("a", "b\x00c", "payment again", version=2))
    system.delete("a\x00b", "c")
    assert ids(system, "payment", Asker("u", "a\x00b")) == []
    assert len(ids(system, "payment", inside)) == 2


def test_the_nul_escape_is_injective_and_keeps_code_point_order() -> None:
    alphabet = ("\x00", "\x01", "\x02", "a")
    words = [""] + [x + y + z for x in alphabet for y in ("", *alphabet) for z in ("", "a")]
    stored = [postgres._stored(w) for w in words]
    assert len(set(stored)) == len(set(words))
    assert not any("\x00" in s for s in stored)
    assert [postgres._read(s) for s in stored] == words
    assert sorted(words) == [postgres._read(s) for s in sorted(stored)]


def test_hybrid_is_rrf_with_ranks_from_one(system: postgres.PostgresSystem) -> None:
    system.ingest(Doc("acme", "d1", "payment payment held"))
    policy = Policy(mode="hybrid", rrf_k=10, candidate_limit=5, result_limit=5)
    [hit] = system.retrieve("payment held", Asker("u", "acme"), 0, policy).hits
    assert hit.score == 1 / (10 + 1) + 1 / (10 + 1)


def test_each_system_is_a_fresh_empty_schema(database: postgres.Database) -> None:
    first = postgres.PostgresSystem(database, settings_of())
    first.ingest(Doc("acme", "d1", "payment"))
    second = postgres.PostgresSystem(database, settings_of())
    assert first.schema != second.schema
    assert ids(second, "payment", Asker("u", "acme")) == []
    first.close()
    second.close()


def test_a_missing_library_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres, "_databases", {})
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(MissingExtra, match=r"pip install 'ragward\[postgres\]'"):
        postgres.rls()
    monkeypatch.delitem(sys.modules, "psycopg")
    monkeypatch.setitem(sys.modules, "pgserver", None)
    with pytest.raises(MissingExtra, match=r"pip install 'ragward\[pgvector\]'"):
        postgres.pgvector_exact()


def test_dsn_without_environment_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGWARD_PG_DSN", raising=False)
    with pytest.raises(InvalidArgument, match="RAGWARD_PG_DSN") as error:
        postgres.dsn()
    assert "\n" not in str(error.value)


def test_hnsw_filters_after_the_index_scan() -> None:
    """pgvector's HNSW scan returns ``ef_search`` rows before the policies filter them,
    so a selective filter comes back short (pgvector/pgvector#259): the engine fact the
    ``pgvector_hnsw`` configuration exposes, and the exact scan does not have."""
    pytest.importorskip("pgserver")
    docs = [
        Doc("acme", f"d{i:02}", f"payment word{i} held", classification="public" if i % 10 == 0
            else "restricted")
        for i in range(60)
    ]  # fmt: skip
    policy = Policy(mode="dense", candidate_limit=6, result_limit=6)
    asker = Asker("u", "acme", "public")
    answers = []
    for system in (postgres.pgvector_exact(), postgres.pgvector_hnsw(ef_search=2)):
        for doc in docs:
            system.ingest(doc)
        answers.append(len(system.retrieve("payment held", asker, 0, policy).hits))
        system.close()
    assert answers[0] == 6
    assert answers[1] < 6
