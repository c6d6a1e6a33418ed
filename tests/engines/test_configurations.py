"""Configurations tell installed from missing without importing the engine."""

from __future__ import annotations

from ragward.engines import Configuration, configurations


def test_a_submodule_of_an_absent_package_is_missing_not_an_error() -> None:
    configuration = Configuration(
        "x", "y", "a framework split in namespace packages", "x", ("ragward", "no_such_pkg.core")
    )
    assert configuration.missing() == ["no_such_pkg.core"]


def test_every_configuration_says_what_it_misses() -> None:
    for configuration in configurations():
        assert set(configuration.missing()) <= set(configuration.modules)
    assert {c.engine for c in configurations()} >= {"llamaindex", "langchain"}
