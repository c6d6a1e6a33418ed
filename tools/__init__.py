"""ragward's developer tools, run from the repository root as ``python -m tools.NAME``.

They are not part of the package: mutation testing of the reference and of the gate's
verdict path, the generators of the docs' catalogue and tables, the Tidewater builder,
the engines' pinned findings. Each says what it writes in its own docstring.
"""
