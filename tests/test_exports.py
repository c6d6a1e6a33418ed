"""A package's attributes found on first use (``ragward.exports``)."""

from __future__ import annotations

from typing import Any

import pytest

from ragward.evals.records import Dataset, Query
from ragward.exports import Exports


def test_a_lazy_name_is_imported_from_its_home_on_first_use_and_kept() -> None:
    namespace: dict[str, Any] = {}
    exports = Exports("ragward.evals", namespace, lazy={"records": ("Query", "Dataset")})
    assert exports.names() == ["Dataset", "Query"]
    assert exports.find("Query") is Query
    assert namespace == {"Query": Query}
    assert exports.find("Dataset") is Dataset


def test_a_former_name_warns_and_gives_the_current_one() -> None:
    exports = Exports("pkg", {"New": Query}, former={"Old": "New"})
    with pytest.warns(DeprecationWarning, match=r"^pkg\.Old is deprecated: use pkg\.New$"):
        assert exports.find("Old") is Query


def test_any_other_name_is_an_attribute_error() -> None:
    exports = Exports("pkg", {"New": Query}, lazy={"home": ("Lazy",)}, former={"Old": "New"})
    with pytest.raises(AttributeError, match=r"^module 'pkg' has no attribute 'Missing'$"):
        exports.find("Missing")
