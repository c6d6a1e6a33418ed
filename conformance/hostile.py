"""Hostile identifiers: the tenants, doc ids, barriers and questions an adversary picks.

A store that makes one key of several identifiers by joining them with a separator, or
that normalises, folds, trims, unescapes or truncates them, gives two identities one key:
tenant ``a`` / document ``b\\x00c`` and tenant ``a\\x00b`` / document ``c`` become one
point, ``café`` in NFC and in NFD one row, a barrier ``hr,legal`` one that an asker inside
``hr`` and ``legal`` passes. The fixed lists of :mod:`ragward.conformance.strategies`
never hold such pairs; the programs drawn here are made of them.

Every case writes *pairs* of documents whose identities differ only where a lossy key
would not look (:data:`TWINS`, separators between tenant and ``doc_id``, a ``doc_id``
and a version run together, barrier names and lists), the first of each pair at a higher
version than the second, so that a version record the two share refuses a write. Then the
principals of each side ask for the pair by fingerprint, with the fingerprints joined by
separators, quotes and backslashes; then each side is rewritten, one of the pair deleted,
and everyone asks again. Where a tenant and a question run together read like another
tenant and question, both are asked, so a cache keyed that way answers one with the
other's answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from ragward.conformance.programs import Key, Op, Program
from ragward.conformance.records import CLASSIFICATIONS, Asker, Doc, Policy
from ragward.conformance.strategies import ANCHORS, MARK, fingerprint, stamp

__all__ = ["PIECES", "SEPARATORS", "TWINS", "hostile_programs"]

#: What a key is joined with, escaped by, or split at: paths, SQL, CSV, URLs, C strings.
SEPARATORS: tuple[str, ...] = (
    ":",
    "::",
    "/",
    "\x00",
    "|",
    "\\",
    "'",
    '"',
    ",",
    ".",
    "#",
    "@",
    "%",
    "_",
    "-",
    " ",
    "\t",
    "\n",
    ";",
    "=",
)
#: The separators stores join keys with most: every case splits one tenant and doc id
#: at one of them.
KEY_SEPARATORS: tuple[str, ...] = ("\x00", ":", "::", "/", "|")
#: Pieces identifiers are made of: plain words, SQL and glob wildcards, quotes, escapes,
#: format strings, reserved words, scripts beyond Latin, astral characters.
PIECES: tuple[str, ...] = (
    "a",
    "b",
    "acme",
    "d1",
    "Ωmega",
    "0",
    "NULL",
    "%",
    "_",
    "*",
    "'",
    '"',
    "\\",
    "..",
    "$1",
    "{}",
    "東京",
    "\U0001d41a",
)
#: A long run, past the lengths a store may cut a key at (255, 256, 1024 bytes...).
LONG = "x" * 300
LONGER = "ab:/" * 275

#: Pairs of endings that a lossy key reads alike (by normalisation, case folding,
#: confusable letters, trimming, C-string truncation, unescaping, path or URL
#: normalisation): an identifier with one ending and with the other are two identities.
_ENDINGS: dict[str, tuple[str, str]] = {
    "nfc/nfd": ("\u00e9", "e\u0301"),
    "nfkc ligature": ("\ufb01", "fi"),
    "full width": ("\uff21", "A"),
    "kelvin sign": ("\u212a", "K"),
    "case": ("A", "a"),
    "case fold": ("\u00df", "ss"),
    "cyrillic a": ("a", "\u0430"),
    "greek o": ("o", "\u03bf"),
    "zero width": ("x", "\u200bx"),
    "trailing space": ("", " "),
    "trailing nul": ("", "\x00"),
    "after a nul": ("\x00a", "\x00b"),
    "escaped nul": ("\\0", "\x00"),
    "escaped hex": ("\\x00", "\x00"),
    "quote doubled": ("'", "''"),
    "backslash doubled": ("\\", "\\\\"),
    "url escape": ("/", "%2F"),
    "double slash": ("/b", "//b"),
    "dot segment": ("/b", "/./b"),
    "line ending": ("\n", "\r\n"),
    "chunk suffix": ("", "::1"),
}


def _ending(one: str, other: str) -> Callable[[str], tuple[str, str]]:
    return lambda v: (v + one, v + other)


#: Pairs of identifiers that differ, built from one identifier: each pair is two
#: identities a lossy key merges (the endings above, a leading space, or a cut).
TWINS: dict[str, Callable[[str], tuple[str, str]]] = {
    **{name: _ending(one, other) for name, (one, other) in _ENDINGS.items()},
    "leading space": lambda v: (v, " " + v),
    "long": lambda v: (LONG + v + "1", LONG + v + "2"),
    "longer": lambda v: (LONGER + v, LONGER + v + "z"),
}
#: What joins the fingerprints of a question: separators, quotes, an injection's tail.
QUESTION_GLUE: tuple[str, ...] = (
    " ",
    ":",
    "\x00",
    "|",
    "'",
    '"',
    "\\",
    "/",
    '" OR "',
    "' OR '1'='1 ",
    "\t",
    " %s ",
)
#: Modes that read a lexical ranking, large limits, rerank off: every document a
#: question names by fingerprint has room in the answer.
POLICIES: tuple[Policy, ...] = (
    Policy(mode="lexical", rerank=False, candidate_limit=8, result_limit=8),
    Policy(mode="hybrid", rerank=False, candidate_limit=8, result_limit=8),
)
_KINDS = ("split", "doc twin", "tenant twin", "digits", "barrier twin", "barrier list")


@dataclass(frozen=True)
class _Pair:
    """Two documents a lossy key confuses, and who asks about them."""

    first: Doc
    second: Doc
    askers: tuple[Asker, ...]
    #: Questions asked as given (a tenant and question that run together alike).
    asked: tuple[tuple[int, str], ...] = ()


def _text(draw: st.DrawFn, tenant: str, doc_id: str, version: int) -> str:
    words = draw(st.lists(st.sampled_from(ANCHORS), min_size=1, max_size=3))
    return stamp(" ".join([MARK, *words]), tenant, doc_id, version)


def _doc(
    draw: st.DrawFn, tenant: str, doc_id: str, version: int, barrier: str | None = None
) -> Doc:
    return Doc(
        tenant,
        doc_id,
        _text(draw, tenant, doc_id, version),
        classification=draw(st.sampled_from(CLASSIFICATIONS)),
        barrier=barrier,
        version=version,
    )


def _piece(draw: st.DrawFn) -> str:
    return draw(st.sampled_from(PIECES))


def _twins(draw: st.DrawFn, base: str) -> tuple[str, str]:
    name = draw(st.sampled_from(sorted(TWINS)))
    one, other = TWINS[name](base)
    return (one, other) if draw(st.booleans()) else (other, one)


def _reader(user: str, tenant: str, barriers: tuple[str, ...] = ()) -> Asker:
    return Asker(user, tenant, "restricted", barriers)


@st.composite
def _pair(draw: st.DrawFn, tenant: str, user: str, kind: str = "") -> _Pair:
    if not kind:
        kind = draw(st.sampled_from(_KINDS))
    high = draw(st.integers(min_value=2, max_value=3))
    if kind in ("split", "key split"):
        # Joined with the separator, (x, y+s+z) and (x+s+y, z) read alike.
        seps = KEY_SEPARATORS if kind == "key split" else SEPARATORS
        sep, y, z = draw(st.sampled_from(seps)), _piece(draw), _piece(draw)
        other = tenant + sep + y
        first = _doc(draw, tenant, y + sep + z, high)
        second = _doc(draw, other, z, 1)
        askers = (_reader(user, tenant), _reader(user, other))
        # A cache keyed by tenant and question joined alike confuses these two questions.
        named = fingerprint(other, z, 1)
        asked = ((0, y + sep + named), (1, named))
        return _Pair(first, second, askers, asked if draw(st.booleans()) else asked[::-1])
    if kind == "tenant twin":
        one, other = _twins(draw, tenant)
        doc_id = _piece(draw)
        first, second = _doc(draw, one, doc_id, high), _doc(draw, other, doc_id, 1)
        return _Pair(first, second, (_reader(user, one), _reader(user, other)))
    if kind == "digits":
        # A doc id and its version run together: ("p1", 2) and ("p", 12) read "p12".
        stem = _piece(draw)
        first, second = _doc(draw, tenant, stem + "1", 2), _doc(draw, tenant, stem, 12)
        return _Pair(first, second, (_reader(user, tenant),))
    if kind == "barrier twin":
        one, other = _twins(draw, _piece(draw))
        first = _doc(draw, tenant, "b1", high, barrier=one)
        second = _doc(draw, tenant, "b2", 1, barrier=other)
        readers = tuple(_reader(user, tenant, b) for b in ((one,), (other,), ()))
        return _Pair(first, second, readers)
    if kind == "barrier list":
        # Inside "b" and "c" is not inside "b,c", nor is inside "b,c" inside "b".
        sep, b, c = draw(st.sampled_from(SEPARATORS)), _piece(draw), _piece(draw)
        first = _doc(draw, tenant, "l1", high, barrier=b + sep + c)
        second = _doc(draw, tenant, "l2", 1, barrier=b)
        barriers = ((b, c) if b != c else (b,), (b + sep + c,), (c,))
        return _Pair(first, second, tuple(_reader(user, tenant, x) for x in barriers))
    one, other = _twins(draw, _piece(draw))
    first, second = _doc(draw, tenant, one, high), _doc(draw, tenant, other, 1)
    return _Pair(first, second, (_reader(user, tenant),))


def _question(draw: st.DrawFn, docs: list[Doc]) -> str:
    glue = draw(st.sampled_from(QUESTION_GLUE))
    named = [fingerprint(d.tenant, d.doc_id, d.version) for d in docs]
    return glue.join(draw(st.permutations(named)))


@st.composite
def hostile_programs(draw: st.DrawFn) -> Program:
    """Pairs of documents under identities a lossy key merges, written (the first of each
    pair at the higher version), asked for by fingerprint by the principals of both
    sides, rewritten, one of each pair deleted, and asked for again."""
    tenant = draw(st.sampled_from(PIECES))
    user = draw(st.sampled_from(("u", "u:" + tenant, "u\x00")))
    pairs: list[_Pair] = []
    keys: set[tuple[str, str]] = set()
    # One tenant and doc id split at a common key separator, then any pairs.
    for kind in ("key split", *[""] * draw(st.integers(min_value=0, max_value=3))):
        pair = draw(_pair(tenant, user, kind))
        mine = {(d.tenant, d.doc_id) for d in (pair.first, pair.second)}
        if len(mine) == 2 and not mine & keys:
            keys |= mine
            pairs.append(pair)
    ops: list[Op] = []
    # The newest version written of each key, deleted or not: what questions name.
    latest: dict[tuple[str, str], Doc] = {}

    def write(doc: Doc) -> None:
        ops.append(Op("ingest", doc=doc))
        key = (doc.tenant, doc.doc_id)
        if key not in latest or doc.version > latest[key].version:
            latest[key] = doc

    def ask(pair: _Pair) -> None:
        named = [latest[(d.tenant, d.doc_id)] for d in (pair.first, pair.second)]
        for asker in pair.askers:
            ops.append(Op("retrieve", asker=asker, query=_question(draw, named)))
        for index, query in pair.asked:
            ops.append(Op("retrieve", asker=pair.askers[index], query=query))

    for pair in pairs:
        write(pair.first)
        write(pair.second)
    for pair in pairs:
        ask(pair)
    for pair in pairs:
        # The second side moves on (a record shared with the first refuses it); the first
        # side's late write must be refused (a record the second overwrote takes it).
        second = pair.second
        newer = replace(second, version=second.version + 1)
        write(replace(newer, text=_text(draw, second.tenant, second.doc_id, newer.version)))
        late = replace(pair.first, version=draw(st.integers(1, pair.first.version)))
        write(replace(late, text=_text(draw, late.tenant, late.doc_id, late.version)))
    for pair in pairs:
        # One side deleted (or none): the other stays, and the deleted one stays away.
        gone = draw(st.sampled_from((pair.first, pair.second, None)))
        if gone is not None:
            ops.append(Op("delete", key=Key(gone.tenant, gone.doc_id)))
        ask(pair)
    return Program(tuple(ops), draw(st.sampled_from(POLICIES)))
