"""Floods: documents outside the asker's eligible view that would outrank the scene.

A flood repeats the query's words (or copies the scene's texts) in documents of other
tenants (often under the same ``doc_id``), of classifications above the asker, behind
barriers the asker is outside of, or stale: a retriever that filters after ranking, or
takes statistics over the whole namespace, lets them in or lets them move the scores.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import strategies as st

from ragward.conformance.records import CLASSIFICATIONS, Doc
from ragward.conformance.strategies import (
    ANCHORS,
    BARRIERS,
    DOC_IDS,
    MARK,
    SEPARATORS,
    TENANTS,
    Scene,
    documents,
    restamp,
    scenes,
)
from ragward.conformance.visibility import in_view

__all__ = ["LARGE_FLOODS", "Flooded", "count_floods", "flooded", "large_floods"]


@dataclass(frozen=True)
class Flooded:
    """A scene plus documents outside its asker's eligible view.

    ``flood_at[i]`` is where ``flood[i]`` goes in the ingestion order of ``scene.docs``.
    """

    scene: Scene
    flood: tuple[Doc, ...]
    flood_at: tuple[int, ...]

    def merged(self) -> list[tuple[Doc, bool]]:
        """Every document in ingestion order, each with whether it is of the flood."""
        slots: list[list[Doc]] = [[] for _ in range(len(self.scene.docs) + 1)]
        for doc, at in zip(self.flood, self.flood_at, strict=True):
            slots[min(at, len(self.scene.docs))].append(doc)
        out: list[tuple[Doc, bool]] = []
        for index, slot in enumerate(slots):
            out.extend((doc, True) for doc in slot)
            if index < len(self.scene.docs):
                out.append((self.scene.docs[index], False))
        return out


def _invisible_kinds(scene: Scene) -> list[str]:
    """The ways a document can be outside ``scene``'s asker's view, given its clearance
    and freshness contract: another tenant, a barrier, a classification above, stale."""
    asker, policy, now = scene.asker, scene.policy, scene.now_tick
    kinds = ["tenant", "barrier"]
    if CLASSIFICATIONS.index(asker.max_classification) < len(CLASSIFICATIONS) - 1:
        kinds.append("classification")
    if policy.max_stale_ticks is not None and now - policy.max_stale_ticks - 1 >= 0:
        kinds.append("stale")
    return kinds


def _outside(
    draw: st.DrawFn, scene: Scene, doc: Doc, index: int, used: set[tuple[str, str]]
) -> Doc:
    asker, policy, now = scene.asker, scene.policy, scene.now_tick
    rank = CLASSIFICATIONS.index(asker.max_classification)
    kind = draw(st.sampled_from(_invisible_kinds(scene)))
    doc = replace(doc, tenant=asker.tenant, doc_id=f"flood-{index}")
    if kind == "tenant":
        tenant = draw(st.sampled_from([t for t in (*TENANTS, "flood") if t != asker.tenant]))
        doc_id = draw(st.sampled_from([d.doc_id for d in scene.docs] + list(DOC_IDS)))
        doc = replace(
            doc, tenant=tenant, doc_id=doc_id if (tenant, doc_id) not in used else doc.doc_id
        )
    elif kind == "classification":
        doc = replace(doc, classification=draw(st.sampled_from(CLASSIFICATIONS[rank + 1 :])))
    elif kind == "barrier":
        outside = [b for b in (*BARRIERS, "flood-barrier") if b not in asker.barriers]
        doc = replace(doc, barrier=draw(st.sampled_from(outside)))
    else:
        assert policy.max_stale_ticks is not None
        latest = now - policy.max_stale_ticks - 1
        tick = draw(st.one_of(st.just(latest), st.integers(min_value=0, max_value=latest)))
        doc = replace(doc, updated_tick=tick)
    used.add((doc.tenant, doc.doc_id))
    return restamp(doc)


def _query_words(query: str) -> list[str]:
    return [w for w in query.split() if any(c.isalnum() for c in w)] or list(ANCHORS[:3])


def _flood_anywhere(draw: st.DrawFn, scene: Scene, flood: list[Doc]) -> Flooded:
    """``flood`` written at drawn places among the scene's documents."""
    n, size = len(scene.docs), len(flood)
    at = draw(st.lists(st.integers(min_value=0, max_value=n), min_size=size, max_size=size))
    return Flooded(scene, tuple(flood), tuple(at))


@st.composite
def flooded(draw: st.DrawFn, twins: bool = False, max_size: int = 20) -> Flooded:
    """A scene and a flood that outranks it: other tenants (often under the same
    ``doc_id``), classifications above the asker, barriers they are outside of, stale
    ticks; texts are the query repeated, or copies of the scene's texts."""
    scene = draw(scenes(twins=twins))
    used = {(d.tenant, d.doc_id) for d in scene.docs}
    words = _query_words(scene.query)
    flood: list[Doc] = []
    # The full size often: a flood larger than the candidate pool is what a post-filter
    # cannot survive, whatever pool size the adapter uses by default.
    size = draw(st.one_of(st.integers(min_value=1, max_value=max_size), st.just(max_size)))
    for index in range(size):
        kind = draw(st.sampled_from(("copy", "query", "query", "one word")))
        if scene.docs and kind == "copy":
            body = draw(st.sampled_from(scene.docs)).text
        else:
            # The query's words, or one of them alone: a flood that raises the document
            # frequency of one term reorders what a namespace-wide IDF ranks.
            said = [draw(st.sampled_from(words))] if kind == "one word" else words
            sep = draw(st.sampled_from(SEPARATORS))
            body = MARK + " " + sep.join(said * draw(st.integers(min_value=1, max_value=5)))
        doc = draw(documents(scene.asker.tenant, f"flood-{index}", body))
        flood.append(_outside(draw, scene, doc, index, used))
    return _flood_anywhere(draw, scene, flood)


#: Flood sizes of :func:`large_floods`: beyond the candidate lists an approximate index
#: explores by default (pgvector's ``hnsw.ef_search`` is 40, LanceDB's ``nprobes`` and
#: ``refine`` windows are of the same order), so a filter applied during or after the
#: approximate scan runs out of visible candidates.
LARGE_FLOODS: tuple[int, ...] = (64, 160)


@st.composite
def large_floods(draw: st.DrawFn) -> Flooded:
    """A scene and a *large* flood: :data:`LARGE_FLOODS` documents outside the asker's
    view, each repeating the query words (so each outranks everything visible), cycling
    through the reasons to be invisible. The flood is built from three drawn values, not
    drawn document by document, so a counterexample shrinks to its scene."""
    scene = draw(scenes())
    asker, policy, now = scene.asker, scene.policy, scene.now_tick
    size = draw(st.sampled_from(LARGE_FLOODS))
    repeats = draw(st.integers(min_value=1, max_value=3))
    spread = draw(st.booleans())
    kinds = _invisible_kinds(scene)
    words = _query_words(scene.query)
    flood: list[Doc] = []
    for index in range(size):
        kind = kinds[index % len(kinds)]
        body = MARK + " " + " ".join(words * (1 + (index + repeats) % 3))
        doc = Doc(asker.tenant, f"flood-{index}", body, updated_tick=now)
        if kind == "tenant":
            doc = replace(doc, tenant="flood")
        elif kind == "barrier":
            doc = replace(doc, classification=asker.max_classification, barrier="flood-barrier")
        elif kind == "classification":
            doc = replace(doc, classification=CLASSIFICATIONS[-1])
        else:
            assert policy.max_stale_ticks is not None
            doc = replace(
                doc,
                classification=asker.max_classification,
                updated_tick=now - policy.max_stale_ticks - 1,
            )
        flood.append(restamp(doc))
    n = len(scene.docs)
    at = tuple((index * 7) % (n + 1) if spread else 0 for index in range(size))
    return Flooded(scene, tuple(flood), at)


@st.composite
def count_floods(draw: st.DrawFn) -> Flooded:
    """A flood of *short* documents (one sentence, one chunk under any sane chunker), each
    containing an anchor word that the query also contains, so each certainly matches."""
    base = draw(scenes())
    if draw(st.integers(min_value=0, max_value=4)) == 0:
        # An asker who sees nothing at all: the invisible matches are still counted, in
        # lexical mode too, where no dense side can count them instead.
        hidden = [d for d in base.docs if not in_view(d, base.asker, base.now_tick, base.policy)]
        mode = draw(st.sampled_from(("lexical", base.policy.mode)))
        base = replace(base, docs=tuple(hidden), policy=replace(base.policy, mode=mode))
    anchor = draw(st.sampled_from(ANCHORS))
    scene = replace(base, query=f"{base.query} {anchor}".strip())
    used = {(d.tenant, d.doc_id) for d in scene.docs}
    words = [w for w in _query_words(base.query) if len(w) <= 12][:3]
    flood: list[Doc] = []
    for index in range(draw(st.integers(min_value=1, max_value=12))):
        extra = draw(st.lists(st.sampled_from(words or [anchor]), max_size=3))
        body = " ".join([MARK, anchor, *extra])
        doc = draw(documents(scene.asker.tenant, f"flood-{index}", body))
        flood.append(_outside(draw, scene, doc, index, used))
    return _flood_anywhere(draw, scene, flood)
