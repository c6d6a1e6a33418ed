"""The peer side of the wire: serve any Python factory over stdin and stdout.

>>> serve(my_factory)          # doctest: +SKIP

Every request gets exactly one response: an exception inside an op is answered as an
error of kind ``exception``, a malformed request as one of kind ``protocol``; nothing the
driver sends makes the server crash. It returns when stdin closes. While it serves the
real stdout, ``print`` output of the implementation is diverted to stderr so that it
cannot corrupt the protocol.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO, TypeVar

from ragward.clipped import clip
from ragward.conformance.contract import Factory, RetrievalSystem
from ragward.conformance.loading import one_line
from ragward.conformance.records import Asker, AssembleRequest, Doc, Hit, Policy, to_data
from ragward.conformance.wire_format import (
    OPTIONAL_OPS,
    PROTOCOL_VERSION,
    decode,
    decode_all,
    dumps,
    quote,
)
from ragward.parsing import Unparsable, parse_json

__all__ = ["serve"]

T = TypeVar("T")


class _Refusal(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def serve(
    factory: Factory, stdin: Iterable[str | bytes] | None = None, stdout: TextIO | None = None
) -> None:
    """Answer the wire requests read from ``stdin`` on ``stdout``, until ``stdin`` ends.

    ``stdin`` yields lines, as text or bytes (default: the bytes of ``sys.stdin``, so a
    line that is not UTF-8 gets a ``protocol`` error); ``stdout`` defaults to
    ``sys.stdout``.
    """
    source: Iterable[str | bytes] = (
        getattr(sys.stdin, "buffer", sys.stdin) if stdin is None else stdin
    )
    sink = sys.stdout if stdout is None else stdout
    server = _Server(factory)
    divert = contextlib.redirect_stdout(sys.stderr) if sink is sys.stdout else None
    with divert or contextlib.nullcontext():
        for line in source:
            if line.strip():
                sink.write(server.handle(line) + "\n")
                sink.flush()


class _Server:
    def __init__(self, factory: Factory) -> None:
        self.factory = factory
        self.current: RetrievalSystem | None = None
        self.ops: dict[str, Callable[[dict[str, Any]], Any]] = {
            "hello": self.hello,
            "reset": self.reset,
            "ingest": self.ingest,
            "delete": self.delete,
            "retrieve": self.retrieve,
            "chunk": self.chunk,
            "assemble": self.assemble,
            "count_tokens": self.count_tokens,
            "ground": self.ground,
            "fuse": self.fuse,
        }

    def handle(self, line: str | bytes) -> str:
        """The response line (without newline) to one request line."""
        request_id: int | None = None
        try:
            try:
                if isinstance(line, bytes):
                    line = line.decode("utf-8")
                request = parse_json(line)
            except UnicodeDecodeError as error:
                raise _Refusal(
                    "protocol", f"request is not UTF-8 ({error}): {quote(line)}"
                ) from None
            except Unparsable as error:
                raise _Refusal(
                    "protocol", f"request is not JSON ({error}): {quote(line)}"
                ) from None
            if not isinstance(request, dict):
                raise _Refusal("protocol", f"request is not a JSON object: {quote(line)}")
            raw_id = request.get("id")
            if isinstance(raw_id, int) and not isinstance(raw_id, bool):
                request_id = raw_id
            else:
                raise _Refusal("protocol", f"request has no integer id: {quote(line)}")
            version = request.get("ragward")
            if version != PROTOCOL_VERSION or isinstance(version, bool):
                raise _Refusal(
                    "version",
                    f"this peer speaks ragward wire protocol version {PROTOCOL_VERSION}, "
                    f"the request says {version!r}",
                )
            op, args = request.get("op"), request.get("args", {})
            if not isinstance(op, str) or op not in self.ops:
                known = ", ".join(self.ops)
                raise _Refusal("protocol", f"unknown op {op!r}; known ops: {known}")
            if not isinstance(args, dict):
                raise _Refusal("protocol", f"{op}: args must be a JSON object")
            result = self.ops[op](args)
            return dumps(
                {"ragward": PROTOCOL_VERSION, "id": request_id, "ok": True, "result": result}
            )
        except _Refusal as refusal:
            kind, message = refusal.kind, str(refusal)
        except Exception as error:
            kind, message = "exception", one_line(error)
        message = clip(message) or kind
        error_data = {"kind": kind, "message": message}
        return dumps(
            {"ragward": PROTOCOL_VERSION, "id": request_id, "ok": False, "error": error_data}
        )

    def system(self) -> RetrievalSystem:
        if self.current is None:
            self.current = self.factory()
        return self.current

    def optional(self, op: str) -> Any:
        system = self.system()
        capability = OPTIONAL_OPS[op]
        if not system.capabilities.has(capability) or not hasattr(system, op):
            raise _Refusal("unsupported", f"{op} needs capability {capability}, not declared")
        return getattr(system, op)

    def hello(self, args: dict[str, Any]) -> Any:
        return to_data(self.system().capabilities)

    def reset(self, args: dict[str, Any]) -> None:
        _only("reset", args)
        self.current = None
        self.current = self.factory()

    def ingest(self, args: dict[str, Any]) -> bool:
        _only("ingest", args, "doc")
        doc = _record("ingest", args, "doc", Doc)
        return _typed("ingest", self.system().ingest(doc), bool)

    def delete(self, args: dict[str, Any]) -> None:
        _only("delete", args, "tenant", "doc_id")
        tenant, doc_id = _arg("delete", args, "tenant", str), _arg("delete", args, "doc_id", str)
        self.system().delete(tenant, doc_id)

    def retrieve(self, args: dict[str, Any]) -> Any:
        _only("retrieve", args, "query", "asker", "now_tick", "policy")
        query = _arg("retrieve", args, "query", str)
        asker = _record("retrieve", args, "asker", Asker)
        now_tick = _arg("retrieve", args, "now_tick", int)
        policy = _record("retrieve", args, "policy", Policy)
        return to_data(self.system().retrieve(query, asker, now_tick, policy))

    def chunk(self, args: dict[str, Any]) -> Any:
        _only("chunk", args, "doc", "max_tokens", "overlap_tokens")
        doc = _record("chunk", args, "doc", Doc)
        max_tokens = _arg("chunk", args, "max_tokens", int)
        overlap = _arg("chunk", args, "overlap_tokens", int)
        return to_data(self.optional("chunk")(doc, max_tokens, overlap))

    def assemble(self, args: dict[str, Any]) -> Any:
        _only("assemble", args, "request")
        request = _record("assemble", args, "request", AssembleRequest)
        return to_data(self.optional("assemble")(request))

    def count_tokens(self, args: dict[str, Any]) -> int:
        _only("count_tokens", args, "text")
        text = _arg("count_tokens", args, "text", str)
        return _typed("count_tokens", self.optional("count_tokens")(text), int)

    def ground(self, args: dict[str, Any]) -> Any:
        _only("ground", args, "claims", "retrieved", "min_overlap")
        claims = _arg("ground", args, "claims", list)
        if not all(isinstance(claim, str) for claim in claims):
            raise _Refusal("protocol", "ground: claims must be an array of strings")
        try:
            retrieved = decode_all(Hit, args["retrieved"], "ground.retrieved")
        except (TypeError, ValueError) as error:
            raise _Refusal("protocol", str(error)) from None
        min_overlap = _arg("ground", args, "min_overlap", float)
        return to_data(self.optional("ground")(tuple(claims), retrieved, min_overlap))

    def fuse(self, args: dict[str, Any]) -> Any:
        _only("fuse", args, "rankings", "k")
        rankings = _arg("fuse", args, "rankings", list)
        if not all(
            isinstance(ranking, list) and all(isinstance(cid, str) for cid in ranking)
            for ranking in rankings
        ):
            raise _Refusal("protocol", "fuse: rankings must be an array of arrays of strings")
        k = _arg("fuse", args, "k", float)
        fused = self.optional("fuse")(tuple(tuple(ranking) for ranking in rankings), k)
        return [[chunk_id, score] for chunk_id, score in fused]


def _only(op: str, args: dict[str, Any], *names: str) -> None:
    missing = [name for name in names if name not in args]
    unknown = sorted(set(args) - set(names))
    if missing or unknown:
        problems = [f"missing argument(s) {', '.join(missing)}"] if missing else []
        problems += [f"unknown argument(s) {', '.join(unknown)}"] if unknown else []
        raise _Refusal("protocol", f"{op}: {'; '.join(problems)}")


def _arg(op: str, args: dict[str, Any], name: str, kind: type[T]) -> T:
    value = args[name]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _Refusal(
            "protocol", f"{op}: {name} must be {kind.__name__}, got {quote(repr(value), 60)}"
        )
    return value


def _record(op: str, args: dict[str, Any], name: str, kind: type[T]) -> T:
    try:
        return decode(kind, args[name], f"{op}.{name}")
    except (TypeError, ValueError) as error:
        raise _Refusal("protocol", str(error)) from None


def _typed(op: str, value: Any, kind: type[T]) -> T:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(
            f"{op} returned {quote(repr(value), 60)}; the contract says {kind.__name__}"
        )
    return value
