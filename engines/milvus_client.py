"""The Milvus databases a process uses: a ``MilvusClient`` per address, and the
collections its systems made, dropped when they are collected and at exit.

With no address the database is Milvus Lite's, in a temporary directory removed at exit
(``MilvusClient("<dir>/milvus.db")`` starts its engine in-process); with one, it is the
deployment at that address (``http://host:19530``, a Zilliz Cloud endpoint, or a
``milvus-lite server``).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import shutil
import tempfile
import threading
import uuid
import weakref
from types import SimpleNamespace
from typing import Any, ClassVar

from ragward.errors import MissingExtra

__all__ = ["Connection", "connection", "literal", "load", "release"]

#: Seconds a drop at exit may wait for a deployment (pymilvus would retry for minutes).
_DROP_TIMEOUT = 10.0


def load() -> Any:
    """What the adapter uses of ``pymilvus``, imported when a system is made."""
    try:
        import pymilvus
    except ImportError as error:
        raise MissingExtra(
            f"engine 'milvus' needs {error.name}: pip install 'ragward[milvus]'"
        ) from None
    return SimpleNamespace(
        MilvusClient=pymilvus.MilvusClient,
        DataType=pymilvus.DataType,
        Function=pymilvus.Function,
        FunctionType=pymilvus.FunctionType,
        AnnSearchRequest=pymilvus.AnnSearchRequest,
        RRFRanker=pymilvus.RRFRanker,
    )


def literal(value: str) -> str:
    """``value`` as a string literal of a Milvus filter expression (double-quoted, the
    escapes its parsers share; a raw newline would end the literal)."""
    escaped = (
        value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    )
    return f'"{escaped}"'


class Connection:
    """One client and the collections its systems own."""

    def __init__(self, client: Any) -> None:
        self.client = client
        # Milvus Lite 3 returns a BM25 hit's score negated (distance = -score); Milvus
        # returns the score itself.
        self.negated_bm25 = str(client.get_server_version()).startswith("milvus_lite-3")
        self._prefix = f"ragward_{uuid.uuid4().hex[:12]}"
        self._names = itertools.count()
        self._lock = threading.Lock()
        self._owned: set[str] = set()
        self._doomed: list[str] = []

    def new_name(self) -> str:
        """A collection-name stem no other system (of any process) uses; collections of
        systems collected since the last call are dropped first."""
        self._drop_doomed()
        with self._lock:
            return f"{self._prefix}_{next(self._names)}"

    def own(self, name: str, system: object) -> None:
        """Record ``name`` as made for ``system``: dropped once ``system`` is collected."""
        with self._lock:
            self._owned.add(name)
        # A finalizer must not call the client: garbage collection can run it on a
        # thread of Milvus Lite's own gRPC server, whose pool the call would wait on.
        weakref.finalize(system, self._doom, name)

    def _doom(self, name: str) -> None:
        with self._lock:
            self._doomed.append(name)

    def _drop_doomed(self) -> None:
        with self._lock:
            doomed, self._doomed = self._doomed, []
            self._owned.difference_update(doomed)
        for name in doomed:
            with contextlib.suppress(Exception):  # already gone is fine
                self.client.drop_collection(name)

    def close(self) -> None:
        """Drop every collection still owned, then close the client."""
        with self._lock:
            names, self._owned, self._doomed = sorted(self._owned), set(), []
        for name in names:
            with contextlib.suppress(Exception):  # a server gone is given up on
                self.client.drop_collection(name, timeout=_DROP_TIMEOUT)
        with contextlib.suppress(Exception):
            self.client.close()


def _remove(path: str) -> None:
    """Stop the Milvus Lite server of the database at ``path``, then remove its directory.

    Milvus Lite stops its servers at exit too, but in whichever order the hooks were
    registered; stopping flushes every collection left, which must not land in a directory
    already removed. No client call can reach the server by then (the thread pools are
    shut down before any exit hook runs), so what is left is not dropped first.
    """
    with contextlib.suppress(Exception):
        from milvus_lite.server_manager import server_manager_instance

        server_manager_instance.release_server(path)
    shutil.rmtree(os.path.dirname(path), ignore_errors=True)


class _Connections:
    _lock = threading.Lock()
    _open: ClassVar[dict[tuple[str | None, str | None], Connection]] = {}


def connection(uri: str | None, token: str | None) -> Connection:
    """The process's connection to ``uri`` (None: its own Milvus Lite database)."""
    key = (uri, token)
    with _Connections._lock:
        if key not in _Connections._open:
            m = load()
            if uri is None:
                directory = tempfile.mkdtemp(prefix="ragward-milvus-")
                path = os.path.join(directory, "milvus.db")
                atexit.register(_remove, path)
                # pymilvus pings an idle channel every 10 s, which Milvus Lite's server
                # (gRPC's defaults: one ping per 5 minutes) answers with GOAWAY
                # "too_many_pings"; pinging as often as the server allows keeps it quiet.
                quiet = {"grpc.keepalive_time_ms": 300_000}
                opened = Connection(m.MilvusClient(path, grpc_options=quiet))
            else:
                opened = Connection(m.MilvusClient(uri=uri, token=token or ""))
                # A deployment keeps what is not dropped.
                atexit.register(opened.close)
            _Connections._open[key] = opened
        return _Connections._open[key]


def release(uri: str, token: str | None = None) -> None:
    """Drop what this process's systems made at ``uri`` and close the client now, not at
    exit (before the deployment goes away)."""
    with _Connections._lock:
        opened = _Connections._open.pop((uri, token), None)
    if opened is not None:
        atexit.unregister(opened.close)
        opened.close()
