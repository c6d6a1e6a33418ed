"""The wire protocol's JSON schemas (``docs/wire/``) hold real traffic and match the code.

Real traffic: the kit run over the driver against the reference's wire server and against
the example peer, through a recorder that keeps every request and response line; each
line must be valid under the schemas, and together they must use every op. The schemas
must also name exactly the records' fields, the ops, the error kinds and the version the
code has, and refuse what the driver refuses.
"""

from __future__ import annotations

import json
import sys
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

import pytest

from ragward.conformance import records, run_conformance
from ragward.conformance.contract import Capabilities
from ragward.conformance.wire import ERROR_KINDS, OPTIONAL_OPS, PROTOCOL_VERSION, external_factory
from ragward.conformance.wire_format import decode
from tests.conformance.json_schema import Schemas

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = Schemas(ROOT / "docs" / "wire")
RECORDER = Path(__file__).with_name("wire_recorder.py")
PEER = ROOT / "conformance" / "examples" / "peer.py"
OPS = ("hello", "reset", "ingest", "delete", "retrieve", *OPTIONAL_OPS)
RECORDS = {
    "Doc": records.Doc,
    "Asker": records.Asker,
    "Policy": records.Policy,
    "Hit": records.Hit,
    "Result": records.Result,
    "Span": records.Span,
    "AssembleRequest": records.AssembleRequest,
    "Context": records.Context,
    "Support": records.Support,
    "Capabilities": Capabilities,
}
#: One invariant per op family: together they send every op to the reference.
REFERENCE_SELECTION = ["ISO-001", "LIFE-003", "PROV-003", "ASM-001", "GRD-001", "FUS-001"]


def _traffic(command: list[str], select: list[str], log: Path) -> list[dict[str, Any]]:
    log.mkdir()
    factory = external_factory([sys.executable, str(RECORDER), str(log), *command])
    try:
        report = run_conformance(factory, select=select, name="recorded")
    finally:
        factory.close()
    assert report.passed, [v.reason for v in report.verdicts if v.status != "pass"]
    return [
        {"request": json.loads(e["request"]), "response": json.loads(e["response"])}
        for path in sorted(log.glob("*.jsonl"))
        for e in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    ]


def _assert_valid(exchanges: list[dict[str, Any]]) -> set[str]:
    ops = set()
    for exchange in exchanges:
        request, response = exchange["request"], exchange["response"]
        assert SCHEMAS.errors(request, "request.schema.json") == [], request
        assert SCHEMAS.errors(response, "response.schema.json") == [], response
        assert response["id"] == request["id"]
        assert response["ok"], response
        result_errors = SCHEMAS.errors(
            response["result"], f"results.schema.json#/$defs/{request['op']}"
        )
        assert result_errors == [], (request["op"], response["result"])
        ops.add(request["op"])
    return ops


@pytest.mark.slow
def test_the_traffic_with_the_reference_is_valid_and_uses_every_op(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "ragward.wire_reference"]
    exchanges = _traffic(command, REFERENCE_SELECTION, tmp_path / "log")
    assert _assert_valid(exchanges) == set(OPS)


@pytest.mark.slow
def test_the_traffic_with_the_example_peer_is_valid(tmp_path: Path) -> None:
    exchanges = _traffic([sys.executable, str(PEER)], ["ISO-001", "LIFE-003"], tmp_path / "log")
    assert _assert_valid(exchanges) == {"hello", "reset", "ingest", "delete", "retrieve"}


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_each_record_schema_names_exactly_the_record_fields(name: str) -> None:
    schema = SCHEMAS.load("records.schema.json")["$defs"][name]
    kind = RECORDS[name]
    assert list(schema["properties"]) == [f.name for f in fields(kind)]
    required = [
        f.name for f in fields(kind) if f.default is MISSING and f.default_factory is MISSING
    ]
    assert schema["required"] == required
    assert schema["additionalProperties"] is False


def test_the_schemas_name_the_ops_error_kinds_and_version_of_the_code() -> None:
    request = SCHEMAS.load("request.schema.json")
    assert tuple(request["properties"]["op"]["enum"]) == OPS
    assert [b["properties"]["op"]["const"] for b in request["oneOf"]] == list(OPS)
    assert sorted(SCHEMAS.load("results.schema.json")["$defs"]) == sorted(OPS)
    response = SCHEMAS.load("response.schema.json")
    assert tuple(response["properties"]["error"]["properties"]["kind"]["enum"]) == ERROR_KINDS
    assert request["properties"]["ragward"]["const"] == PROTOCOL_VERSION
    assert response["properties"]["ragward"]["const"] == PROTOCOL_VERSION
    levels = SCHEMAS.load("records.schema.json")["$defs"]["classification"]["enum"]
    assert tuple(levels) == records.CLASSIFICATIONS


_HIT = {"chunk_id": "d::1", "doc_id": "d", "version": 1, "start": 0, "end": 1, "text": "x"}
#: Results the driver refuses, each for one reason; the schema must refuse them too.
_REFUSED = [
    {"hits": [{**_HIT, "score": 1.0, "rank": 1}]},  # an unknown field
    {"hits": [{**_HIT}]},  # no score
    {"hits": [{**_HIT, "score": "1.0"}]},  # a score that is a string
    {"hits": [{**_HIT, "score": 1.0, "version": 1.0}]},  # an integer written as 1.0
    {"hits": [{**_HIT, "score": 1.0}], "considered": True},  # a count that is a boolean
    {"hits": {"d::1": 1.0}},  # hits that are not an array
    {"considered": 3},  # no hits
]


@pytest.mark.parametrize("result", _REFUSED)
def test_what_the_driver_refuses_the_schema_refuses(result: Any) -> None:
    with pytest.raises(TypeError):
        decode(records.Result, result, "result")
    assert SCHEMAS.errors(result, "results.schema.json#/$defs/retrieve") != []


@pytest.mark.parametrize(
    "message",
    [
        {"ragward": 1, "id": 3, "ok": True},  # no result
        {"ragward": 1, "id": 3, "ok": False, "result": None},  # no error
        {"ragward": 1, "id": 3, "ok": False, "error": {"kind": "crash", "message": "x"}},
        {"ragward": 2, "id": 3, "ok": True, "result": None},  # another version
        {"ragward": 1, "id": True, "ok": True, "result": None},  # a boolean id
        {"ragward": 1, "id": 3, "ok": "yes", "result": None},
    ],
)
def test_malformed_responses_are_refused(message: dict[str, Any]) -> None:
    assert SCHEMAS.errors(message, "response.schema.json") != []


@pytest.mark.parametrize(
    "message",
    [
        {"ragward": 1, "id": 1, "op": "hello"},  # no args
        {"ragward": 1, "id": 1, "op": "search", "args": {}},
        {"ragward": 1, "id": 1, "op": "delete", "args": {"tenant": "a"}},
        {"ragward": 1, "id": 1, "op": "ingest", "args": {"doc": {"tenant": "a", "doc_id": "d"}}},
        {
            "ragward": 1,
            "id": 1,
            "op": "retrieve",
            "args": {"query": "q", "asker": {"user_id": "u", "tenant": "a"}, "now_tick": 2**63},
        },
    ],
)
def test_malformed_requests_are_refused(message: dict[str, Any]) -> None:
    assert SCHEMAS.errors(message, "request.schema.json") != []
