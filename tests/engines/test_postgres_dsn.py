"""The ``dsn`` configuration against a deployment set up as ``docs/engines.md`` says.

One throw-away server per module (pgserver's PostgreSQL 16, which has pgvector; the
system PostgreSQL here has not), on a Unix socket in a temporary folder, stopped and
removed at the end. Its superuser runs the SQL block of the docs' "PostgreSQL roles"
section verbatim — read from the page, so the docs and the test cannot drift — and the
adapter is pointed at it the way an operator would: ``RAGWARD_PG_DSN`` (and
``RAGWARD_PG_READER``) in the environment. Each mistake an operator could make is the
docs' block with one change, on roles of its own, and must be refused with one line
before any schema is made.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from ragward.conformance.runner import run_conformance
from ragward.engines import pg_deployment, postgres
from ragward.engines.pg_server import TemporaryServer, pgserver_bin
from ragward.errors import InvalidArgument
from tests.doc_checks import ROOT

pytestmark = pytest.mark.slow

#: The invariants judged through the deployment: the entitlement boundary (ISO) and the
#: pre-filter (PRE) that row-level security must give. The whole ``ci`` column took 128 s
#: here; the other invariants judge code the ``pgvector_exact`` column runs already.
INVARIANTS = ("ISO-001", "ISO-002", "PRE-001", "PRE-006")


def docs_setup() -> str:
    """The SQL block of the "PostgreSQL roles" section of ``docs/engines.md``."""
    page = (ROOT / "docs" / "engines.md").read_text(encoding="utf-8")
    section = page.split("### PostgreSQL roles\n", 1)[1].split("\n## ", 1)[0]
    blocks = section.split("```sql\n")[1:]
    assert len(blocks) == 1, "the section shows one SQL block, the one the operator runs"
    return blocks[0].split("```", 1)[0]


@dataclass(frozen=True)
class Deployment:
    """A running server with the docs' setup in database ``ragward``; ``admin`` is its
    superuser's connection to that database."""

    socket: Path
    admin: psycopg.Connection[Any]

    def dsn(self, user: str = "ragward_owner", database: str = "ragward") -> str:
        return f"host={self.socket} dbname={database} user={user}"

    def mistake(self, prefix: str, *changes: str) -> tuple[str, str]:
        """The docs' setup for roles ``<prefix>_owner`` and ``<prefix>_reader``, then
        ``changes`` (``{o}`` and ``{r}`` stand for the roles); the two role names."""
        owner, reader = f"{prefix}_owner", f"{prefix}_reader"
        sql = docs_setup().replace("ragward_owner", owner).replace("ragward_reader", reader)
        for change in changes:
            sql += change.format(o=owner, r=reader) + ";\n"
        self.admin.execute(sql.encode())
        return owner, reader


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    with TemporaryServer(pgserver_bin()) as server:
        assert server.root is not None
        with psycopg.connect(server.dsn, autocommit=True) as first:
            first.execute(b"CREATE DATABASE ragward")
            first.execute(b"CREATE DATABASE ragward_plain")  # no vector extension
        url = server.dsn.replace("dbname=postgres", "dbname=ragward")
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(docs_setup().encode())
            yield Deployment(server.root, admin)


@pytest.fixture
def operator(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """The environment of an operator's shell, and a cache of deployments of this test's
    own, closed at its end (the server outlives the test)."""
    monkeypatch.delenv("RAGWARD_PG_DSN", raising=False)
    monkeypatch.delenv("RAGWARD_PG_READER", raising=False)
    made: dict[object, postgres.Database] = {}
    monkeypatch.setattr(postgres, "_databases", made)
    yield monkeypatch
    for database in made.values():
        database.connection.close()


def test_the_docs_setup_passes_the_isolation_invariants(
    deployment: Deployment, operator: pytest.MonkeyPatch
) -> None:
    operator.setenv("RAGWARD_PG_DSN", deployment.dsn())
    report = run_conformance(postgres.dsn, select=INVARIANTS, name="dsn")
    assert {v.id: v.status for v in report.verdicts} == dict.fromkeys(INVARIANTS, "pass"), report
    # It ran on the deployment, reading as the docs' reader, logged in as their owner.
    [database] = postgres._databases.values()
    assert database.reader == "ragward_reader"
    assert database.connection.execute(b"SELECT current_user").fetchone() == ("ragward_owner",)


#: (the mistake, the changes to the docs' setup, login is the reader, the refusal)
MISTAKES = [
    ("superuser", ["ALTER ROLE {r} SUPERUSER"], False, "is a superuser: row-level security"),
    ("bypassrls", ["ALTER ROLE {r} BYPASSRLS"], False, "has BYPASSRLS: row-level security"),
    ("login_is_reader", [], True, "is the login role, the role that creates and so owns"),
    (
        "reader_has_login",  # a superuser login role needs no membership to SET ROLE
        ["REVOKE {r} FROM {o}", "ALTER ROLE {o} SUPERUSER", "GRANT {o} TO {r}"],
        False,
        "has the privileges of 'reader_has_login_owner', the role that creates and so owns",
    ),
    ("not_member", ["REVOKE {r} FROM {o}"], False, "cannot SET ROLE to the reader role"),
    ("no_create", ["REVOKE CREATE ON DATABASE ragward FROM {o}"], False, "may not create"),
]


@pytest.mark.parametrize(("prefix", "changes", "login_reads", "refusal"), MISTAKES)
def test_a_deployment_mistake_is_refused_before_any_schema(
    deployment: Deployment,
    operator: pytest.MonkeyPatch,
    prefix: str,
    changes: list[str],
    login_reads: bool,
    refusal: str,
) -> None:
    owner, reader = deployment.mistake(prefix, *changes)
    operator.setenv("RAGWARD_PG_DSN", deployment.dsn(owner))
    operator.setenv("RAGWARD_PG_READER", owner if login_reads else reader)
    with pytest.raises(InvalidArgument, match=refusal) as error:
        postgres.dsn()
    assert "\n" not in str(error.value)
    assert _schemas(deployment, owner) == 0
    assert postgres._databases == {}


def test_a_reader_that_does_not_exist_is_refused(
    deployment: Deployment, operator: pytest.MonkeyPatch
) -> None:
    operator.setenv("RAGWARD_PG_DSN", deployment.dsn())
    operator.setenv("RAGWARD_PG_READER", "ragward_nobody")
    with pytest.raises(
        InvalidArgument, match=r"'ragward_nobody' \(RAGWARD_PG_READER\) does not exist"
    ):
        postgres.dsn()


def test_a_database_without_pgvector_is_refused(
    deployment: Deployment, operator: pytest.MonkeyPatch
) -> None:
    deployment.admin.execute(b"GRANT CREATE ON DATABASE ragward_plain TO ragward_owner")
    operator.setenv("RAGWARD_PG_DSN", deployment.dsn(database="ragward_plain"))
    with pytest.raises(InvalidArgument, match="the vector extension is not installed"):
        postgres.dsn()


def test_the_server_asked_as_the_reader_is_the_last_word(
    deployment: Deployment, operator: pytest.MonkeyPatch
) -> None:
    """With the deployment's checks gone, a bypassing reader is still refused by the
    server's own answer (``row_security_active``), and its schema rolled back."""
    owner, reader = deployment.mistake("unchecked", "ALTER ROLE {r} BYPASSRLS")
    operator.setattr(pg_deployment, "check", lambda connection, reader: None)
    operator.setenv("RAGWARD_PG_DSN", deployment.dsn(owner))
    operator.setenv("RAGWARD_PG_READER", reader)
    with pytest.raises(InvalidArgument, match="row-level security would not apply"):
        postgres.dsn()
    assert _schemas(deployment, owner) == 0


def test_unrefused_the_bypassing_reader_leaks_and_the_invariants_say_so(
    deployment: Deployment, operator: pytest.MonkeyPatch
) -> None:
    """What the refusals guard against: with both gone, a reader with ``BYPASSRLS`` is
    judged, and every selected invariant fails (so they do judge row-level security)."""
    owner, reader = deployment.mistake("leaky", "ALTER ROLE {r} BYPASSRLS")
    operator.setattr(pg_deployment, "check", lambda connection, reader: None)
    operator.setattr(pg_deployment, "refuse_unless_secured", lambda cursor, reader, table: None)
    operator.setenv("RAGWARD_PG_DSN", deployment.dsn(owner))
    operator.setenv("RAGWARD_PG_READER", reader)
    report = run_conformance(postgres.dsn, select=INVARIANTS, name="dsn", shrink=False)
    assert {v.id: v.status for v in report.verdicts} == dict.fromkeys(INVARIANTS, "fail")


def _schemas(deployment: Deployment, owner: str) -> int:
    row = deployment.admin.execute(
        b"SELECT count(*) FROM pg_namespace WHERE pg_get_userbyid(nspowner) = %s", (owner,)
    ).fetchone()
    assert row is not None
    return int(row[0])


def _conform(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGWARD_PG_")}
    return subprocess.run(
        [sys.executable, "-m", "ragward", "conform", "--impl", "ragward.engines.postgres:dsn",
         "--select", "ISO-001"],
        env={**env, **environment},
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )  # fmt: skip


def test_refusals_are_exit_2_and_one_line_from_the_command(
    deployment: Deployment, tmp_path: Path
) -> None:
    owner, reader = deployment.mistake("command", "ALTER ROLE {r} SUPERUSER")
    cases = {
        "needs RAGWARD_PG_DSN": {},
        "cannot connect to the PostgreSQL deployment (RAGWARD_PG_DSN)": {
            "RAGWARD_PG_DSN": f"host={tmp_path} dbname=ragward user=ragward_owner"
        },
        f"the reader role '{reader}' is a superuser": {
            "RAGWARD_PG_DSN": deployment.dsn(owner),
            "RAGWARD_PG_READER": reader,
        },
    }
    for refusal, environment in cases.items():
        done = _conform(environment)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
        assert refusal in done.stderr
