"""The external driver: the wire protocol against the served reference and bad peers."""

from __future__ import annotations

import gc
import io
import json
import sys
import textwrap
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ragward.conformance import (
    Asker,
    AssembleRequest,
    Capabilities,
    Doc,
    Hit,
    Policy,
    Result,
    RetrievalSystem,
    run_conformance,
)
from ragward.conformance.wire import (
    ExternalFactory,
    ExternalSystem,
    PeerError,
    WireError,
    external_factory,
    serve,
)
from ragward.engines.reference import ReferenceSystem, reference_factory

REFERENCE = [sys.executable, "-m", "ragward.wire_reference"]

CORPUS = (
    Doc("acme", "handbook", "# Leave\nStaff take leave by asking HR.\n\n# Pay\nPay is monthly."),
    Doc("acme", "merger", "Project Kestrel merger terms.", classification="restricted"),
    Doc("acme", "desk", "Trading desk leave rules.", barrier="trading", updated_tick=5),
    Doc("globex", "handbook", "Globex leave policy: unlimited leave.", title="Globex"),
    Doc("acme", "old", "Stale leave memo.", updated_tick=0),
    Doc("acme", "café", "Naïve leave résumé — 休暇 🚀\r\n\tend", title="Ünïcode"),
)
ASKERS = (
    Asker("ann", "acme"),
    Asker("bob", "acme", "restricted", ("trading",)),
    Asker("gil", "globex", "public"),
)
POLICIES = (
    Policy(),
    Policy(mode="lexical", rerank=False, result_limit=2),
    Policy(mode="dense", max_stale_ticks=3),
)


@pytest.fixture(scope="module")
def served() -> Iterator[ExternalFactory]:
    with external_factory(REFERENCE) as factory:
        yield factory


def _load(system: RetrievalSystem) -> list[bool]:
    return [system.ingest(doc) for doc in CORPUS]


def test_the_served_reference_declares_the_reference_capabilities(
    served: ExternalFactory,
) -> None:
    system = served()
    assert isinstance(system, RetrievalSystem)
    assert system.capabilities == ReferenceSystem.capabilities


def test_every_required_op_round_trips_with_the_in_process_answers(
    served: ExternalFactory,
) -> None:
    remote, local = served(), reference_factory()
    assert _load(remote) == _load(local) == [True] * len(CORPUS)
    stale = Doc("acme", "handbook", "An older text.", version=1)
    newer = Doc("acme", "handbook", "Leave is asked of HR, by mail.", version=2, updated_tick=6)
    assert remote.ingest(stale) is local.ingest(stale) is False
    assert remote.ingest(newer) is local.ingest(newer) is True
    remote.delete("acme", "old")
    local.delete("acme", "old")
    for query in ("leave", "merger terms", "pay monthly", ""):
        for asker in ASKERS:
            for policy in POLICIES:
                answer = remote.retrieve(query, asker, 7, policy)
                assert isinstance(answer, Result)
                assert answer == local.retrieve(query, asker, 7, policy), (query, asker, policy)
    assert remote.retrieve("leave", ASKERS[0], 7, Policy()).hits  # the corpus is not trivial


def test_every_optional_op_round_trips_with_the_in_process_answers(
    served: ExternalFactory,
) -> None:
    remote, local = served(), reference_factory()
    for max_tokens, overlap in ((8, 0), (16, 4), (200, 10)):
        spans = remote.chunk(CORPUS[0], max_tokens, overlap)
        assert spans == local.chunk(CORPUS[0], max_tokens, overlap)
    _load(remote)
    _load(local)
    hits = remote.retrieve("leave", ASKERS[1], 7, Policy()).hits
    request = AssembleRequest(400, "Answer briefly.", "How do I take leave?", retrieved=hits)
    assert remote.assemble(request) == local.assemble(request)
    assert remote.count_tokens("How do I take leave?") == local.count_tokens("How do I take leave?")
    claims = ("Staff take leave by asking HR.", "The moon is made of cheese.")
    assert remote.ground(claims, hits, 0.5) == local.ground(claims, hits, 0.5)
    rankings = (("a", "b", "c"), ("c", "a"), ())
    assert remote.fuse(rankings, 60) == local.fuse(rankings, 60)


def test_each_factory_call_is_a_fresh_empty_system_on_the_same_peer(
    served: ExternalFactory,
) -> None:
    gc.collect()
    first = served()
    _load(first)
    assert first.retrieve("leave", ASKERS[0], 7, Policy()).hits
    peer = first.peer
    del first
    second = served()
    assert second.peer is peer
    assert second.retrieve("leave", ASKERS[0], 7, Policy()).hits == ()


def test_systems_alive_together_never_share_a_peer(served: ExternalFactory) -> None:
    first, second = served(), served()
    assert first.peer is not second.peer
    _load(first)
    assert first.retrieve("leave", ASKERS[0], 7, Policy()).hits
    assert second.retrieve("leave", ASKERS[0], 7, Policy()).hits == ()


def test_an_exception_in_the_peer_is_a_peer_error_and_the_peer_stays_usable(
    served: ExternalFactory,
) -> None:
    system = served()
    with pytest.raises(PeerError, match=r"failed ingest \(request \d+\): exception: ") as caught:
        system.ingest(Doc("acme", "x", "text", classification="top-secret"))
    assert caught.value.kind == "exception"
    assert "\n" not in str(caught.value)
    assert system.ingest(CORPUS[0]) is True


def test_optional_ops_are_refused_locally_when_not_declared() -> None:
    peer = _peer('answer(request, {"chunking": False} if request["op"] == "hello" else None)')
    with external_factory(peer) as factory:
        system = factory()
        with pytest.raises(WireError, match="chunk needs capability chunking, which the peer"):
            system.chunk(CORPUS[0], 8, 0)


# Misbehaving peers, each a few lines of Python run with ``-c``.

_PRELUDE = """\
import json, sys

def answer(request, result, **envelope):
    message = {"ragward": 1, "id": request["id"], "ok": True, "result": result}
    message.update(envelope)
    print(json.dumps(message), flush=True)

for line in sys.stdin:
    request = json.loads(line)
"""


def _peer(body: str) -> list[str]:
    return [sys.executable, "-c", _PRELUDE + textwrap.indent(textwrap.dedent(body), "    ")]


def _failure(command: list[str], timeout: float = 10.0) -> str:
    with external_factory(command, timeout=timeout) as factory, pytest.raises(WireError) as caught:
        factory()
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_peer_that_exits_at_once_reports_its_exit_code_and_stderr() -> None:
    command = [
        sys.executable,
        "-c",
        "import sys; sys.stderr.write('no config found\\n'); sys.exit(3)",
    ]
    message = _failure(command)
    assert "exited with code 3 while answering hello (request 1)" in message
    assert message.endswith("stderr ends: 'no config found'")


def test_a_peer_that_prints_garbage_is_quoted() -> None:
    message = _failure(_peer('print("Listening on port 8080", flush=True)'))
    assert "answered hello (request 1) with a line that is not JSON" in message
    assert "'Listening on port 8080'" in message


def test_a_long_garbage_line_is_truncated() -> None:
    message = _failure(_peer('print("x" * 5000, flush=True)'))
    assert "... (4840 more chars)" in message
    assert len(message) < 600


def test_a_peer_that_answers_another_id_is_refused() -> None:
    message = _failure(_peer('answer(request, {}, id=request["id"] + 41)'))
    assert "answered hello (request 1) with id 42:" in message


def test_a_response_without_ok_is_refused() -> None:
    message = _failure(_peer('print(json.dumps({"ragward": 1, "id": request["id"]}), flush=True)'))
    assert "answered hello (request 1) without a boolean ok" in message


def test_a_peer_that_hangs_is_killed_after_the_timeout() -> None:
    start = time.monotonic()
    message = _failure(_peer("pass"), timeout=0.5)
    assert time.monotonic() - start < 5
    assert "did not answer hello (request 1) within 0.5 s; killed it" in message


def test_a_peer_speaking_another_protocol_version_is_refused() -> None:
    message = _failure(_peer("answer(request, {}, ragward=2)"))
    assert "speaks ragward wire protocol version 2, this driver speaks version 1" in message


def test_a_peer_refusing_this_protocol_version_is_reported() -> None:
    refusal = 'answer(request, None, ok=False, error={"kind": "version", "message": "v2 only"})'
    message = _failure(_peer(refusal))
    assert "refused ragward wire protocol version 1: v2 only" in message


def test_malformed_capabilities_are_refused_and_the_peer_stopped() -> None:
    message = _failure(_peer('answer(request, {"modes": ["quantum"], "chunking": "yes"})'))
    assert "answered hello (request 1) with a malformed result (capabilities" in message


def test_a_command_that_cannot_start_is_reported() -> None:
    message = _failure(["/nonexistent/ragward-peer"])
    assert message.startswith("cannot start peer `/nonexistent/ragward-peer`: ")


def test_a_result_of_the_wrong_shape_is_a_wire_error() -> None:
    body = """\
    result = {"hits": [{"chunk_id": 7}]} if request["op"] == "retrieve" else None
    answer(request, {} if request["op"] == "hello" else result)
    """
    with external_factory(_peer(body)) as factory:
        system = factory()
        with pytest.raises(WireError, match=r"malformed result \(result.hits\[0\].chunk_id: "):
            system.retrieve("q", ASKERS[0], 0, Policy())


def test_a_peer_that_crashes_mid_run_is_replaced_on_the_next_factory_call() -> None:
    body = """\
    if request["op"] == "ingest":
        sys.exit(5)
    answer(request, {} if request["op"] == "hello" else None)
    """
    with external_factory(_peer(body)) as factory:
        system = factory()
        with pytest.raises(
            WireError, match=r"exited with code 5 while answering ingest \(request 3\)"
        ):
            system.ingest(CORPUS[0])
        with pytest.raises(WireError, match="cannot be used: exited with code 5"):
            system.delete("acme", "x")
        replacement = factory()
        assert replacement.peer is not system.peer
        replacement.delete("acme", "x")


def test_a_peer_that_cannot_reset_is_dropped() -> None:
    body = """\
    if request["op"] == "reset":
        error = {"kind": "exception", "message": "MemoryError: \\nout of memory"}
        answer(request, None, ok=False, error=error)
        continue
    answer(request, {})
    """
    with external_factory(_peer(body)) as factory:
        with pytest.raises(
            PeerError, match=r"failed reset \(request 2\): exception: MemoryError: out of memory$"
        ):
            factory()
        assert factory.peers == 0


def test_close_stops_the_peers() -> None:
    factory = external_factory(REFERENCE)
    system = factory()
    assert factory.peers == 1
    factory.close()
    assert factory.peers == 0
    assert not system.peer.alive
    with pytest.raises(WireError, match="is closed"):
        factory()


# The server side, in process.


class _Noisy:
    """A minimal adapter: no optional verbs, prints while it works, fails on demand."""

    capabilities = Capabilities()

    def ingest(self, doc: Doc) -> bool:
        print("ingesting", doc.doc_id)
        if doc.doc_id == "boom":
            raise RuntimeError("disk full")
        return True

    def delete(self, tenant: str, doc_id: str) -> None:
        return None

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        hit = Hit("c1", "d", 1, 0, 4, "text", 1)
        return Result((hit,), considered=1, excluded_by_entitlement=0, excluded_by_freshness=0)


def _serve(*requests: Any) -> list[dict[str, Any]]:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in requests]
    sink = io.StringIO()
    serve(_Noisy, io.StringIO("\n".join(lines) + "\n"), sink)
    return [json.loads(line) for line in sink.getvalue().splitlines()]


def _request(request_id: int, op: str, **args: Any) -> dict[str, Any]:
    return {"ragward": 1, "id": request_id, "op": op, "args": args}


def test_serve_answers_each_request_in_order() -> None:
    doc = {"tenant": "t", "doc_id": "d", "text": "x"}
    asker = {"user_id": "u", "tenant": "t"}
    responses = _serve(
        _request(1, "hello"),
        _request(2, "ingest", doc=doc),
        "   ",
        _request(3, "retrieve", query="q", asker=asker, now_tick=0, policy={}),
        _request(4, "reset"),
    )
    assert [r["id"] for r in responses] == [1, 2, 3, 4]
    assert all(r["ragward"] == 1 and r["ok"] for r in responses)
    assert responses[0]["result"]["modes"] == ["hybrid"]
    assert responses[1]["result"] is True
    assert responses[2]["result"]["hits"][0]["chunk_id"] == "c1"
    assert responses[3]["result"] is None


@pytest.mark.parametrize(
    ("request_line", "kind", "message"),
    [
        ("not json", "protocol", "request is not JSON"),
        ("[1, 2]", "protocol", "request is not a JSON object"),
        ('{"ragward": 1, "op": "hello"}', "protocol", "request has no integer id"),
        (
            {"ragward": 2, "id": 1, "op": "hello"},
            "version",
            "speaks ragward wire protocol version 1",
        ),
        (_request(1, "frobnicate"), "protocol", "unknown op 'frobnicate'"),
        (_request(1, "delete", tenant="t"), "protocol", "delete: missing argument(s) doc_id"),
        (_request(1, "reset", hard=True), "protocol", "reset: unknown argument(s) hard"),
        (_request(1, "count_tokens", text=3), "protocol", "count_tokens: text must be str"),
        (_request(1, "ingest", doc={"tenant": "t"}), "protocol", "ingest.doc: missing field(s)"),
        (
            _request(1, "chunk", doc={}, max_tokens=8, overlap_tokens=0),
            "protocol",
            "chunk.doc: missing field(s) tenant, doc_id, text",
        ),
        (
            _request(1, "ingest", doc={"tenant": "t", "doc_id": "boom", "text": "x"}),
            "exception",
            "RuntimeError: disk full",
        ),
        (_request(1, "count_tokens", text="x"), "unsupported", "needs capability assembly"),
    ],
)
def test_serve_answers_bad_requests_with_an_error_and_keeps_serving(
    request_line: Any, kind: str, message: str
) -> None:
    *errors, last = _serve(request_line, _request(9, "hello"))
    (error,) = errors
    assert error["ok"] is False
    assert error["error"]["kind"] == kind
    assert message in error["error"]["message"]
    assert (last["id"], last["ok"]) == (9, True)


def test_serve_answers_a_line_that_is_not_utf8_with_a_protocol_error() -> None:
    sink = io.StringIO()
    hello = json.dumps(_request(2, "hello")).encode()
    serve(_Noisy, io.BytesIO(b'{"id": 1, "text": "\xff"}\n' + hello + b"\n"), sink)
    error, answer = (json.loads(line) for line in sink.getvalue().splitlines())
    assert error["error"]["kind"] == "protocol"
    assert error["error"]["message"].startswith("request is not UTF-8")
    assert answer["ok"] is True


def test_serve_diverts_prints_of_the_implementation_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = {"tenant": "t", "doc_id": "d", "text": "x"}
    line = json.dumps(_request(1, "ingest", doc=doc))
    serve(_Noisy, io.StringIO(line + "\n"))
    captured = capsys.readouterr()
    assert json.loads(captured.out)["result"] is True
    assert captured.err == "ingesting d\n"


@pytest.mark.slow
def test_the_whole_kit_passes_the_reference_through_the_driver() -> None:
    with external_factory(REFERENCE) as factory:
        through_the_wire = run_conformance(factory, profile="ci")
    in_process = run_conformance(reference_factory, profile="ci")
    failures = [v for v in through_the_wire.verdicts if v.status not in ("pass", "n/a")]
    assert through_the_wire.passed, failures
    assert [(v.id, v.status, v.reason) for v in through_the_wire.verdicts] == [
        (v.id, v.status, v.reason) for v in in_process.verdicts
    ]


def test_an_external_system_is_a_retrieval_system(served: ExternalFactory) -> None:
    assert isinstance(served(), ExternalSystem)
    assert repr(served).startswith("external_factory([")
