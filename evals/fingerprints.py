"""Fingerprints: what an eval report's figures were computed from, as content hashes.

Two reports can only be compared when they measured the same thing. File names say
nothing of what was in the files (a regraded label keeps its file's name), so every
``results.json`` and ``tune.json`` records, under ``fingerprints``:

- ``data``: a hash of the corpus (every document version, every field that is indexed or
  filtered on), of the split's queries as asked (id, text, asker, time, freshness
  contract), of its judgements (query, document, grade) and of its labelled claims
  (null when it has none);
- ``grid``: a hash of the settings swept (the grid without its name and default split,
  which change no answer);
- ``implementation``: :class:`~ragward.conformance.identity.ImplementationIdentity`, in
  the form ``ragward conform --json`` records it too;
- ``models``: per index built (its label, with `` rerank-NAME`` for a system built with a
  named reranker), the models that answered (:func:`models_of`);
- ``ragward``: the version that ran.

A hash is taken of the parsed records as canonical JSON (sorted keys, each collection
sorted), never of file bytes: a gzipped corpus, keys in another order or lines in another
order give the same hash; any changed text, label, grade or added record does not.

>>> digest({"b": 1, "a": [1, 2]}) == digest({"a": [1, 2], "b": 1})
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ragward import __version__
from ragward.conformance.identity import ImplementationIdentity
from ragward.conformance.records import to_data
from ragward.errors import AdapterError
from ragward.evals.grid import Grid, IndexSetting
from ragward.evals.records import Dataset
from ragward.evals.systems import a_type

if TYPE_CHECKING:
    from ragward.evals.runner import GridOutcome

__all__ = [
    "data_fingerprints",
    "digest",
    "fingerprints",
    "grid_fingerprint",
    "identity_of",
    "markdown",
    "models_of",
]

#: Grid keys that change no answer: a report's name and the split used when none is given
#: (the split evaluated is fingerprinted by its data).
_GRID_LABELS = ("name", "split")


def digest(data: Any) -> str:
    """``sha256:<hex>`` of ``data`` as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(
        data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _records(records: Iterable[object]) -> str:
    # each record canonical, then the collection sorted: file order changes nothing
    return digest(sorted(digest(to_data(record)) for record in records))


def data_fingerprints(dataset: Dataset, split: str) -> dict[str, str | None]:
    """Hashes of the corpus, and of ``split``'s queries, judgements and claims."""
    judged = dataset.qrels[split]
    claims = dataset.split_claims(split)
    return {
        "corpus": _records(dataset.docs),
        "queries": _records(dataset.split_queries(split)),
        "qrels": digest(sorted([q, d, g] for q, docs in judged.items() for d, g in docs.items())),
        "claims": _records(claims) if claims else None,
    }


def grid_fingerprint(grid: Grid) -> str:
    """A hash of the settings ``grid`` sweeps (as run: fitted, an own index as such)."""
    data = grid.to_data()
    return digest({key: value for key, value in data.items() if key not in _GRID_LABELS})


def fingerprints(
    dataset: Dataset,
    split: str,
    grid: Grid,
    implementation: ImplementationIdentity,
    models: Mapping[str, str],
) -> dict[str, Any]:
    """The ``fingerprints`` block of a report on ``split`` (see the module's doc)."""
    return {
        "data": data_fingerprints(dataset, split),
        "grid": grid_fingerprint(grid),
        "implementation": implementation.to_data(),
        "models": dict(sorted(models.items())),
        "ragward": __version__,
    }


def identity_of(implementation: str, outcome: GridOutcome) -> ImplementationIdentity:
    """The identity of the implementation that gave ``outcome``, named ``implementation``."""
    if outcome.capabilities is None:
        raise ValueError("the grid ran no system: no capabilities to report")
    return ImplementationIdentity(
        implementation, outcome.capabilities, outcome.index_settings_passed
    )


def models_of(system: object, index: IndexSetting, reranker: str | None, name: str) -> str:
    """The models ``system`` answers with: its ``model_identity`` (an optional attribute of
    an adapter, a string: the reference's says which embedder and reranker, with their
    weights' hashes), else what it was asked to be built with, marked unreported."""
    identity = getattr(system, "model_identity", None)
    if identity is not None:
        if not isinstance(identity, str) or not identity.strip():
            raise AdapterError(
                f"{name}: model_identity is {a_type(identity)}, not a non-empty str "
                "(the models the system answers with, for the report)"
            )
        return identity
    asked = [] if index.is_own else [f"embedder {index.embedder}"]
    if reranker is not None:
        asked.append(f"reranker {reranker}")
    return f"unreported ({', '.join(asked) if asked else 'its own index'})"


def markdown(prints: Mapping[str, Any]) -> list[str]:
    """The lines ``summary.md`` shows of a ``fingerprints`` block: short hashes, the
    version, whether index settings were passed and each system's models."""
    data = prints["data"]
    hashes = [f"{key} `{_short(value)}`" for key, value in data.items()]
    hashes.append(f"grid `{_short(prints['grid'])}`")
    lines = [
        "## Fingerprints",
        "",
        f"Data and grid (sha256, first 12 hex digits): {', '.join(hashes)}. "
        f"ragward {prints['ragward']}; index settings "
        f"{'passed' if prints['implementation']['index_settings_passed'] else 'not passed'}.",
        "",
    ]
    lines += [f"- `{label}`: {model}" for label, model in prints["models"].items()]
    return [*lines, ""]


def _short(value: str | None) -> str:
    return "none" if value is None else value.removeprefix("sha256:")[:12]
