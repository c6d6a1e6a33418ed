"""Identifiers are opaque: keys made of several are injective, and nothing parses them.

``joined_key`` is what an adapter hashes when its store takes one string; the kit's
fingerprint tells document versions apart whatever their ids hold; a citation's section is
read after the hit's own ``doc_id``, which may hold ``#`` or ``@v``.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ragward.conformance.strategies import fingerprint
from ragward.engines.reference_records import section_of
from ragward.keys import joined_key

# Few characters, separators among them: two different tuples often run together alike.
_IDS = st.text(alphabet="ab:/\x00|\\'0123456789", max_size=6)


@given(st.lists(_IDS, max_size=4), st.lists(_IDS, max_size=4))
def test_joined_keys_of_different_tuples_differ(one: list[str], other: list[str]) -> None:
    assert (joined_key(*one) == joined_key(*other)) == (one == other)


def test_joined_keys_by_hand() -> None:
    assert joined_key("a", "b\x00c") == "1:a3:b\x00c"
    assert joined_key("a\x00b", "c") == "3:a\x00b1:c"
    assert joined_key() == ""


@given(_IDS, _IDS, _IDS, _IDS, st.integers(1, 12), st.integers(1, 12))
def test_fingerprints_of_different_versions_differ(
    t1: str, d1: str, t2: str, d2: str, v1: int, v2: int
) -> None:
    # Six letters of a hash: different identities collide once in 26**6 draws at most;
    # the encoding itself must never make them equal.
    if (t1, d1, v1) != (t2, d2, v2):
        assert fingerprint(t1, d1, v1) != fingerprint(t2, d2, v2)


def test_a_nul_in_an_id_no_longer_merges_two_fingerprints() -> None:
    assert fingerprint("a", "b\x00c", 1) != fingerprint("a\x00b", "c", 1)
    # Ids without a NUL keep the fingerprint they always had: pinned cases still trace.
    assert fingerprint("acme", "d1", 2) == "qxewrutu"


def test_a_section_is_read_after_the_hits_own_doc_id() -> None:
    assert section_of("d1@v2#Intro[0:5]", "d1", 2) == "Intro"
    assert section_of("a#b@v1#x[y@v2#Notes[3:9]", "a#b@v1#x[y", 2) == "Notes"
    assert section_of("a#b@v1#Notes[0:1]", "a#b", 1) == "Notes"
    assert section_of("", "d1", 1) == "body"
    assert section_of("other form", "d1", 1) == "body"
