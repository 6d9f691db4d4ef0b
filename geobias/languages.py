"""Supported languages and their defaults."""

from __future__ import annotations

from dataclasses import dataclass

from geobias.errors import InputError


@dataclass(frozen=True)
class Language:
    """A supported language.

    Attributes
    ----------
    code : str
        ISO 639-1 code.
    name : str
    grammatical_gender : bool
    sources : tuple of str
        Registry names of its default vectors, in order of preference (see
        :mod:`geobias.sources.registry`): the paper's source first, then the ones installable
        without a download (the ``use-m3-*`` encoder sources). The one to use is
        :func:`geobias.sources.registry.default_source` (the first installed).
    """

    code: str
    name: str
    grammatical_gender: bool
    sources: tuple[str, ...]


LANGUAGES: dict[str, Language] = {
    "en": Language("en", "English", False, ("en-w2v-gnews", "use-m3-en")),
    "es": Language("es", "Spanish", True, ("muse-es", "use-m3-es")),
    "fr": Language("fr", "French", True, ("fr-spacy-md", "use-m3-fr")),
    "de": Language("de", "German", True, ("muse-de", "use-m3-de")),
}


def get_language(code: str) -> Language:
    """Return the :class:`Language` for an ISO 639-1 code.

    Raises
    ------
    InputError
        Unknown code; the message lists the supported ones.
    """
    try:
        return LANGUAGES[code.lower()]
    except (KeyError, AttributeError):
        raise InputError(
            f"unknown language {code!r}; supported: {', '.join(LANGUAGES)}"
        ) from None
