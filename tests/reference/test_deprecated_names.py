"""The reference's former record names still import, with a DeprecationWarning."""

from __future__ import annotations

import warnings

import pytest

import ragward.reference
from ragward.reference import ReferenceAsker, ReferenceDoc, ReferencePolicy

FORMER = [
    ("Document", ReferenceDoc),
    ("Principal", ReferenceAsker),
    ("RetrievalPolicy", ReferencePolicy),
]


@pytest.mark.parametrize(("old", "new"), FORMER)
def test_a_former_name_warns_and_gives_the_new_class(old: str, new: type) -> None:
    with pytest.warns(DeprecationWarning, match=rf"ragward\.reference\.{old} is deprecated: use"):
        got = getattr(ragward.reference, old)
    assert got is new


def test_from_import_of_a_former_name_warns_at_the_importer() -> None:
    with pytest.warns(DeprecationWarning, match="use ragward.reference.ReferenceDoc") as caught:
        from ragward.reference import Document
    assert Document is ReferenceDoc
    assert caught[0].filename == __file__


@pytest.mark.parametrize(("old", "new"), FORMER)
def test_the_current_names_import_without_a_warning(old: str, new: type) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = getattr(ragward.reference, new.__name__)
    assert got is new
    assert old not in ragward.reference.__all__
    assert new.__name__ in ragward.reference.__all__


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'Documents'"):
        _ = ragward.reference.Documents
