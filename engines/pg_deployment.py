"""A PostgreSQL deployment checked before the adapter writes to it.

The ``dsn`` configuration judges whatever server ``RAGWARD_PG_DSN`` names, with the roles
its operator made. Row-level security, the adapter's entitlement boundary, silently does
not apply to a reader that is a superuser, has ``BYPASSRLS`` or owns the tables (the
login role creates them, so a reader that is the login role or has its privileges owns
them): the kit would then judge an engine with no filter at all, and a leak in
production would pass. :func:`connect` and :func:`check` refuse such a deployment with
one line naming the role and the SQL that fixes it, before any schema is made; so do a
login role that cannot ``SET ROLE`` to the reader or create schemas, and a database
without the ``vector`` extension. ``docs/engines.md`` shows the setup they expect.
:func:`refuse_unless_secured` then asks the server itself, as the reader, for every
system the adapter makes, on a deployment or a temporary server alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragward.clipped import clip, first_line
from ragward.errors import InvalidArgument

if TYPE_CHECKING:
    import psycopg

__all__ = ["check", "connect", "quoted", "refuse_unless_secured"]

_FACTS = """SELECT current_user, current_database(), r.rolsuper, r.rolbypassrls,
    pg_has_role(r.oid, current_user, 'USAGE'),
    has_database_privilege(current_database(), 'CREATE'),
    to_regtype('vector') IS NOT NULL
FROM pg_roles AS r WHERE r.rolname = %s"""


def quoted(role: str) -> str:
    """``role`` as an SQL identifier: double quotes, a double quote doubled."""
    return '"' + role.replace('"', '""') + '"'


def connect(psycopg: Any, url: str) -> psycopg.Connection[Any]:
    """An autocommit connection to ``url``, or a one-line :class:`InvalidArgument`
    saying why the server could not be reached (never the DSN: it may hold a password)."""
    try:
        return psycopg.connect(url, autocommit=True)  # type: ignore[no-any-return]
    except psycopg.Error as error:
        raise InvalidArgument(
            f"cannot connect to the PostgreSQL deployment (RAGWARD_PG_DSN): {first_line(error)}"
        ) from None


def check(connection: psycopg.Connection[Any], reader: str) -> None:
    """Refuse, with one line naming the fix, a deployment where the adapter cannot work or
    where row-level security would not apply to ``reader``; nothing is written."""
    name = clip(reader)
    facts = None
    if "\x00" not in reader:
        facts = connection.execute(_FACTS.encode(), (reader,)).fetchone()
    if facts is None:
        raise InvalidArgument(
            f"the reader role {name!r} (RAGWARD_PG_READER) does not exist: create it as "
            "docs/engines.md shows"
        )
    login, database, superuser, bypass, owns, create, vector = facts
    bypassed = "row-level security would not apply to it"
    if superuser:
        raise InvalidArgument(
            f"the reader role {name!r} is a superuser: {bypassed} "
            f"(ALTER ROLE {quoted(name)} NOSUPERUSER)"
        )
    if bypass:
        raise InvalidArgument(
            f"the reader role {name!r} has BYPASSRLS: {bypassed} "
            f"(ALTER ROLE {quoted(name)} NOBYPASSRLS)"
        )
    if owns:
        how = "is the login role" if reader == login else f"has the privileges of {login!r}"
        raise InvalidArgument(
            f"the reader role {name!r} {how}, the role that creates and so owns the tables: "
            f"{bypassed} (read as a role that is not a member of {login!r})"
        )
    if not _can_set_role(connection, reader):
        raise InvalidArgument(
            f"the login role {login!r} cannot SET ROLE to the reader role {name!r} "
            f"(GRANT {quoted(name)} TO {quoted(login)})"
        )
    if not create:
        raise InvalidArgument(
            f"the login role {login!r} may not create schemas in database {database!r} "
            f"(GRANT CREATE ON DATABASE {quoted(database)} TO {quoted(login)})"
        )
    if not vector:
        raise InvalidArgument(
            f"the vector extension is not installed in database {database!r}, or not in a "
            f"schema on the search path of {login!r} (CREATE EXTENSION vector)"
        )


def _can_set_role(connection: psycopg.Connection[Any], reader: str) -> bool:
    """Whether the login role may ``SET ROLE`` to ``reader``, tried rather than looked
    up: the rule changed in PostgreSQL 16 (the ``SET`` option of a membership)."""
    import psycopg

    try:
        with connection.transaction():
            connection.execute(f"SET LOCAL ROLE {quoted(reader)}".encode())
    except psycopg.errors.InsufficientPrivilege:
        return False
    return True


def refuse_unless_secured(cursor: psycopg.Cursor[Any], reader: str, table: str) -> None:
    """Ask the server, as ``reader`` (``SET LOCAL ROLE``: the rest of the transaction runs
    as it), whether row-level security applies to it on ``table``, and refuse if not: the
    truth :func:`check` stands for, asked of every system whatever its server, so a cause
    :func:`check` does not name is refused too."""
    cursor.execute(f"SET LOCAL ROLE {quoted(reader)}".encode())
    cursor.execute(b"SELECT row_security_active(%s)", (table,))
    row = cursor.fetchone()
    if row is None or row[0] is not True:
        raise InvalidArgument(
            f"row-level security would not apply to the reader role {clip(reader)!r} on "
            f"{table}: refused before any write"
        )
