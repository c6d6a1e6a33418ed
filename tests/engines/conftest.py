"""Servers the engine tests need, started here and stopped here, also on failure."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def postgres_servers() -> Iterator[None]:
    """The system PostgreSQL and pgserver's PostgreSQL 16 + pgvector, each in a temporary
    directory on a Unix socket, for every PostgreSQL configuration of the session."""
    from ragward.engines import postgres

    with postgres.serving():
        yield
