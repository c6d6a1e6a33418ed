"""The source of a module that serves the reference with one verb replaced.

The command tests load such a module the way a user's adapter is loaded: in process with
``--impl FILE.py:NAME``, or as a wire peer with ``--external "python FILE.py ..."``.

>>> source = wrapped_reference("broken", 'raise RuntimeError("boom")')
>>> "def broken(**keywords):" in source and "serve(" not in source
True
"""

from __future__ import annotations

import textwrap

__all__ = ["wrapped_reference"]

_CLASS = """\
{imports}from ragward.engines.reference import reference_factory

class {cls}:
    def __init__(self, **keywords):
        self.inner = reference_factory(**keywords)
        self.capabilities = self.inner.capabilities

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def retrieve(self, *args, **kwargs):
{body}
"""


def wrapped_reference(name: str, retrieve: str, *, imports: str = "", peer: bool = False) -> str:
    """A module whose class (``name`` capitalised) is the reference but for ``retrieve``
    (the method's body); it ends with the factory ``name(**keywords)``, or, for a
    ``peer``, serves the class on the wire. ``imports`` go first."""
    body = textwrap.indent(textwrap.dedent(retrieve).strip("\n"), " " * 8)
    cls = name.capitalize()
    source = _CLASS.format(imports=imports, cls=cls, body=body)
    if peer:
        return f"{source}\nfrom ragward.conformance.wire_server import serve\n\nserve({cls})\n"
    return f"{source}\ndef {name}(**keywords):\n    return {cls}(**keywords)\n"
