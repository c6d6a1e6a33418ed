"""The external driver: validate an implementation in any language over JSON lines.

The kit talks to a *peer* — a subprocess started from a command line — over its stdin and
stdout, one JSON object per line. :func:`external_factory` turns such a command into a
:data:`~ragward.conformance.contract.Factory`, so the whole kit runs against it unchanged;
:func:`serve` is the peer side, and serves any Python factory.

>>> factory = external_factory(["./my-retriever", "--conformance"])   # doctest: +SKIP
>>> run_conformance(factory, profile="ci").passed                     # doctest: +SKIP
True

Wire protocol, version 1
========================

Framing. Each message is one JSON object (RFC 8259) encoded as UTF-8 on a single line
ended by ``\\n``; a ``\\r`` before it is tolerated and blank lines are ignored. The driver
escapes every non-ASCII character (``\\uXXXX``), so its requests are pure ASCII. The
driver writes a request and waits for its response before writing the next one: exactly
one response per request, in order. The peer must write nothing else on stdout (log to
stderr; the driver keeps its last lines for error messages) and must flush after every
response. Numbers are JSON numbers (ticks and versions are integers that fit in 64 bits);
should a case ever hold a non-finite float, it is sent as ``NaN``, ``Infinity`` or
``-Infinity``, as Python's ``json`` does.

Request, driver to peer::

    {"ragward": 1, "id": 7, "op": "retrieve", "args": {...}}

Response, peer to driver, with the ``id`` of the request::

    {"ragward": 1, "id": 7, "ok": true, "result": ...}
    {"ragward": 1, "id": 7, "ok": false, "error": {"kind": "exception", "message": "..."}}

``ragward`` is the protocol version, in every message. ``id`` is an integer the driver
increments per request. An error's ``kind`` is one of ``protocol`` (the request could not
be understood: not JSON, a missing field, an unknown op, a missing, unknown or mistyped
argument; ``id`` is ``null`` when the request had none), ``version`` (the peer does not
speak this protocol version), ``unsupported`` (an optional op the peer does not offer) or
``exception`` (the implementation failed while carrying the op out); ``message`` is one
human-readable line.

Records travel as objects whose keys are the fields of the kit's records
(:mod:`ragward.conformance.records`), tuples as arrays, ``None`` as ``null``: exactly what
:func:`~ragward.conformance.records.to_data` produces. Omitted fields take the record's
default; unknown fields are an error. ``Doc``, ``Asker``, ``Policy``, ``Hit``, ``Result``,
``Span``, ``AssembleRequest``, ``Context``, ``Support`` and ``Capabilities`` are used.

Ops; args, then result:

``hello``
    ``{}`` -> ``Capabilities``. Sent once, first, when the peer starts. The result declares
    what the peer can be asked (omitted flags take their defaults: ``delete``,
    ``versions``, ``barriers``, ``freshness``, ``counts`` and ``scores`` true, ``modes``
    ``["hybrid"]``, the rest false). The driver refuses a peer whose response carries
    another ``ragward`` version, and a peer may answer a version it does not speak with
    an error of kind ``version``.
``reset``
    ``{}`` -> ``null``. Drop all state: the peer becomes a fresh, empty system. The
    driver sends it every time the kit asks its factory for a new system, instead of
    starting a process per example.
``ingest``
    ``{"doc": Doc}`` -> ``true`` when accepted, ``false`` when refused because its
    ``version`` is not newer than one already seen for ``(tenant, doc_id)``.
``delete``
    ``{"tenant": str, "doc_id": str}`` -> ``null``.
``retrieve``
    ``{"query": str, "asker": Asker, "now_tick": int, "policy": Policy}`` -> ``Result``.
``chunk`` (capability ``chunking``)
    ``{"doc": Doc, "max_tokens": int, "overlap_tokens": int}`` -> ``[Span, ...]``.
``assemble`` (capability ``assembly``)
    ``{"request": AssembleRequest}`` -> ``Context``.
``count_tokens`` (capability ``assembly``)
    ``{"text": str}`` -> ``int``.
``ground`` (capability ``grounding``)
    ``{"claims": [str, ...], "retrieved": [Hit, ...], "min_overlap": number}`` ->
    ``[Support, ...]``, one per claim, in order.
``fuse`` (capability ``fusion``)
    ``{"rankings": [[chunk_id, ...], ...], "k": number}`` -> ``[[chunk_id, score], ...]``.

The semantics of each op are those of the Python contract
(:class:`~ragward.conformance.contract.RetrievalSystem`); the driver calls an optional op
only when ``hello`` declared its capability. The peer should exit when its stdin closes.

Processes. The driver starts a peer lazily, on the first call of the factory, and keeps
it: every later call of the factory is one ``reset``, not a new process. When the kit
holds several systems at once (to compare two corpora, say), each is served by its own
peer process, started the same way; a peer returns to the factory's pool when its system
is garbage-collected. A shim in front of a shared service must therefore keep the state
of each peer process apart (a namespace per process, dropped on ``reset``).

Failures. Every call has a timeout (10 s by default; ``startup_timeout`` may give
``hello`` longer). Each way a call can fail raises :class:`WireError` with a one-line
message naming the peer command, the op and the request id:

* the peer exited (its exit code or signal) or closed its stdout;
* it missed the timeout;
* it answered garbage: a line that is not JSON or not an object, no or another
  ``ragward`` version, another ``id``, no boolean ``ok``, ``ok: true`` without
  ``result``, ``ok: false`` without ``error.kind`` and ``error.message`` (the line is
  quoted, truncated);
* its result has the wrong shape: a missing, unknown or mistyped field, named by its
  path (``result.hits[0].chunk_id: expected string, got 7``).

In the first three cases the driver kills the peer (its whole process group) and the
message ends with the last lines of its stderr; the factory starts a fresh peer the next
time it is called, so one crash fails one invariant, not the whole run. A wrong-shaped
result leaves the peer running. A peer that answers ``ok: false`` raises
:class:`PeerError` (a :class:`WireError`, with ``kind`` and ``detail``); it stays usable.
The driver runs on POSIX systems.

Serving a Python implementation. :func:`serve` answers requests for any
:data:`~ragward.conformance.contract.Factory`: an exception inside an op becomes an
``exception`` error, a malformed request a ``protocol`` error, and ``print`` output of
the implementation goes to stderr. ``python -m ragward.wire_reference`` serves the
reference this way.
"""

from __future__ import annotations

from ragward.conformance.wire_client import ExternalFactory, ExternalSystem, external_factory
from ragward.conformance.wire_format import (
    DEFAULT_TIMEOUT,
    ERROR_KINDS,
    OPTIONAL_OPS,
    PROTOCOL_VERSION,
    PeerError,
    WireError,
)
from ragward.conformance.wire_peer import Peer
from ragward.conformance.wire_server import serve

__all__ = [
    "DEFAULT_TIMEOUT",
    "ERROR_KINDS",
    "OPTIONAL_OPS",
    "PROTOCOL_VERSION",
    "ExternalFactory",
    "ExternalSystem",
    "Peer",
    "PeerError",
    "WireError",
    "external_factory",
    "serve",
]
