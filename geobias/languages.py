"""Supported languages and their defaults."""

from __future__ import annotations

from dataclasses import dataclass

from geobias.errors import InputError


@dataclass(frozen=True)
class Language:
    code: str
    name: str
    grammatical_gender: bool
    default_source: str  # registry name of the default vectors (see geobias.sources.registry)


LANGUAGES: dict[str, Language] = {
    "en": Language("en", "English", False, "en-w2v-gnews"),
    "es": Language("es", "Spanish", True, "muse-es"),
    "fr": Language("fr", "French", True, "fr-spacy-md"),
    "de": Language("de", "German", True, "muse-de"),
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
