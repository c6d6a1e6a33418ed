"""The driver side of the wire: the kit's contract over peer processes.

>>> with external_factory(["node", "peer.js"], timeout=5) as factory:   # doctest: +SKIP
...     report = run_conformance(factory)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, TypeVar

from ragward.conformance import records
from ragward.conformance.contract import Capabilities
from ragward.conformance.wire_format import (
    DEFAULT_TIMEOUT,
    OPTIONAL_OPS,
    WireError,
    decode,
    decode_all,
    label,
    quote,
)
from ragward.conformance.wire_peer import Peer

__all__ = ["ExternalFactory", "ExternalSystem", "external_factory"]

T = TypeVar("T")


class ExternalSystem:
    """The kit's contract over a peer; a fresh system per :class:`ExternalFactory` call.

    The optional verbs ask the peer only when ``hello`` declared their capability.
    """

    def __init__(self, peer: Peer) -> None:
        self.peer = peer
        self.capabilities: Capabilities = peer.capabilities

    def ingest(self, doc: records.Doc) -> bool:
        return self.peer.call("ingest", {"doc": records.to_data(doc)}, _reader(bool))

    def delete(self, tenant: str, doc_id: str) -> None:
        self.peer.call("delete", {"tenant": tenant, "doc_id": doc_id}, _ignore)

    def retrieve(
        self, query: str, asker: records.Asker, now_tick: int, policy: records.Policy
    ) -> records.Result:
        args = {
            "query": query,
            "asker": records.to_data(asker),
            "now_tick": now_tick,
            "policy": records.to_data(policy),
        }
        return self.peer.call("retrieve", args, lambda data: decode(records.Result, data, "result"))

    def chunk(
        self, doc: records.Doc, max_tokens: int, overlap_tokens: int
    ) -> tuple[records.Span, ...]:
        args = {
            "doc": records.to_data(doc),
            "max_tokens": max_tokens,
            "overlap_tokens": overlap_tokens,
        }
        return self._optional("chunk", args, lambda data: decode_all(records.Span, data, "result"))

    def assemble(self, request: records.AssembleRequest) -> records.Context:
        args = {"request": records.to_data(request)}
        return self._optional(
            "assemble", args, lambda data: decode(records.Context, data, "result")
        )

    def count_tokens(self, text: str) -> int:
        return self._optional("count_tokens", {"text": text}, _reader(int))

    def ground(
        self, claims: tuple[str, ...], retrieved: tuple[records.Hit, ...], min_overlap: float
    ) -> tuple[records.Support, ...]:
        args = {
            "claims": list(claims),
            "retrieved": records.to_data(retrieved),
            "min_overlap": min_overlap,
        }
        return self._optional(
            "ground", args, lambda data: decode_all(records.Support, data, "result")
        )

    def fuse(
        self, rankings: tuple[tuple[str, ...], ...], k: float
    ) -> tuple[tuple[str, float], ...]:
        args = {"rankings": [list(ranking) for ranking in rankings], "k": k}
        return self._optional("fuse", args, _fused)

    def _optional(self, op: str, args: dict[str, Any], read: Callable[[Any], T]) -> T:
        capability = OPTIONAL_OPS[op]
        if not self.capabilities.has(capability):
            raise WireError(
                f"{op} needs capability {capability}, which the peer did not declare in hello"
            )
        return self.peer.call(op, args, read)


def _reader(kind: type[T]) -> Callable[[Any], T]:
    def read(data: Any) -> T:
        if not isinstance(data, kind) or (kind is int and isinstance(data, bool)):
            raise TypeError(f"result: expected {kind.__name__}, got {quote(repr(data), 60)}")
        return data

    return read


def _ignore(data: Any) -> None:
    return None


def _fused(data: Any) -> tuple[tuple[str, float], ...]:
    if not isinstance(data, list):
        raise TypeError("result: expected an array of [chunk_id, score] pairs")
    pairs = []
    for i, pair in enumerate(data):
        ok = isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
        if not ok or isinstance(pair[1], bool) or not isinstance(pair[1], int | float):
            raise TypeError(f"result[{i}]: expected [chunk_id, score], got {quote(repr(pair), 60)}")
        pairs.append((pair[0], float(pair[1])))
    return tuple(pairs)


class _Pool:
    """The peers of one factory: a system owns its peer until it is garbage-collected."""

    def __init__(
        self, command: tuple[str, ...], timeout: float, startup_timeout: float | None
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.idle: list[Peer] = []
        self.peers: list[Peer] = []
        self.closed = False

    def acquire(self) -> Peer:
        if self.closed:
            raise WireError(f"the external factory for {label(self.command)} is closed")
        while self.idle:
            peer = self.idle.pop()
            if peer.alive:
                break
            self.discard(peer)
        else:
            peer = Peer(self.command, timeout=self.timeout, startup_timeout=self.startup_timeout)
            self.peers.append(peer)
        try:
            peer.call("reset", {}, _ignore)
        except WireError:  # a peer that cannot reset cannot be trusted to be empty
            self.discard(peer)
            raise
        return peer

    def release(self, peer: Peer) -> None:
        if peer.alive and not self.closed:
            self.idle.append(peer)
        else:
            self.discard(peer)

    def discard(self, peer: Peer) -> None:
        peer.close()
        if peer in self.peers:
            self.peers.remove(peer)

    def close(self) -> None:
        self.closed = True
        self.idle.clear()
        while self.peers:
            self.peers.pop().close()


class ExternalFactory:
    """A :data:`~ragward.conformance.contract.Factory` of systems served by peer processes.

    Each call sends ``reset`` to an idle peer (starting one, with ``hello``, when none is
    idle) and returns an :class:`ExternalSystem` that owns that peer until it is
    garbage-collected; so systems alive at the same time never share a peer, and a run
    that uses one system at a time uses one process. Peers are closed by :meth:`close`,
    on leaving a ``with`` block, when the factory is garbage-collected, or at exit.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float | None = None,
    ) -> None:
        if isinstance(command, str) or not command:
            raise ValueError(
                "command must be a non-empty sequence of arguments, e.g. ['./peer', '--flag']"
            )
        if timeout <= 0 or (startup_timeout is not None and startup_timeout <= 0):
            raise ValueError(f"timeouts must be positive, got {timeout!r} and {startup_timeout!r}")
        self.command = tuple(command)
        self._pool = _Pool(self.command, timeout, startup_timeout)
        self._finalizer = weakref.finalize(self, self._pool.close)

    def __call__(self) -> ExternalSystem:
        peer = self._pool.acquire()
        system = ExternalSystem(peer)
        weakref.finalize(system, self._pool.release, peer)
        return system

    @property
    def peers(self) -> int:
        """How many peer processes are running."""
        return sum(peer.alive for peer in self._pool.peers)

    def close(self) -> None:
        """Stop every peer; calling the factory afterwards raises :class:`WireError`."""
        self._finalizer()

    def __enter__(self) -> ExternalFactory:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"external_factory({list(self.command)!r})"


def external_factory(
    command: Sequence[str],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    startup_timeout: float | None = None,
) -> ExternalFactory:
    """A factory of systems served over the wire by the peer started with ``command``.

    ``timeout`` bounds every call, in seconds; ``startup_timeout`` (default: ``timeout``)
    bounds the first one, ``hello``, for peers that are slow to start.
    """
    return ExternalFactory(command, timeout=timeout, startup_timeout=startup_timeout)
