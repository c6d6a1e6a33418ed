"""Serve the reference over the conformance kit's wire protocol.

``python -m ragward.wire_reference`` reads requests on stdin and answers on stdout (see
:mod:`ragward.conformance.wire`); the kit's end-to-end test of the external driver runs
the whole kit against it::

    run_conformance(external_factory([sys.executable, "-m", "ragward.wire_reference"]))
"""

from __future__ import annotations

from ragward.conformance.wire import serve
from ragward.engines.reference import reference_factory

__all__ = ["main"]


def main() -> None:
    """Serve fresh reference systems until stdin closes."""
    serve(reference_factory)


if __name__ == "__main__":
    main()
