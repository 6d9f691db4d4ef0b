"""Text for the terminal: docstrings read as plain text."""

from __future__ import annotations

_ROLE = None


def plain_roles(text: str | None) -> str | None:
    """Docstring text for a terminal: Sphinx roles (``:func:`geobias.x.y```, ``:class:`~a.B```)
    become plain backquoted names (`` `geobias.x.y` ``, `` `B` ``)."""
    global _ROLE
    if not text:
        return text
    if _ROLE is None:
        import re

        _ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj|ref):`(~?)([^`]+)`")
    return _ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text)
