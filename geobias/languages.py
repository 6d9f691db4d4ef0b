"""Supported languages and their defaults.

Sixteen languages: the sixteen of the multilingual Universal Sentence Encoder (the ``use-m3-*``
sources), of which es, fr, de (and en) also have the paper's fastText/MUSE sources. Codes are
ISO 639-1, except Chinese, which the encoder covers in two scripts: ``zh-cn`` (simplified) and
``zh-tw`` (traditional). A code is matched case-insensitively, and ``_`` is read as ``-``
(``zh_TW`` → ``zh-tw``).

Grammatical genders (:attr:`Language.genders`) are those that nouns carry and that agreement
makes visible:

- feminine/masculine: Spanish, French, Italian, Portuguese, Arabic;
- feminine/masculine/neuter: German, Polish, Russian;
- Dutch: standard Dutch has two genders, *common* (de-words, the merged old masculine and
  feminine) and *neuter* (het-words); it is recorded as ``("common", "neuter")``. Person nouns
  still come in feminine/masculine pairs (*lerares*/*leraar*), so the semantic lists (pairs,
  occupations) exist, but there is no feminine/masculine noun class to fit a grammatical
  direction on (``grammatical_gender`` is True: the language has grammatical gender);
- none: English, Japanese, Korean, Thai, Turkish, Chinese.
"""

from __future__ import annotations

from dataclasses import dataclass

from geobias.errors import InputError

FM = ("feminine", "masculine")
FMN = ("feminine", "masculine", "neuter")


@dataclass(frozen=True)
class Language:
    """A supported language.

    Attributes
    ----------
    code : str
        ISO 639-1 code (``zh-cn``/``zh-tw`` for Chinese in simplified/traditional script).
    name : str
    grammatical_gender : bool
        Whether nouns carry a grammatical gender (True for Dutch too: common/neuter).
    sources : tuple of str
        Registry names of its default vectors, in order of preference (see
        :mod:`geobias.sources.registry`): the paper's source first, then the ones installable
        without a download (the ``use-m3-*`` encoder sources). The one to use is
        :func:`geobias.sources.registry.default_source` (the first installed).
    genders : tuple of str
        The grammatical genders of its nouns, among ``"feminine"``, ``"masculine"``,
        ``"neuter"`` and ``"common"`` (Dutch); empty for a language without grammatical gender.
    """

    code: str
    name: str
    grammatical_gender: bool
    sources: tuple[str, ...]
    genders: tuple[str, ...] = ()


def _use_only(code: str, name: str, genders: tuple[str, ...]) -> Language:
    return Language(code, name, bool(genders), (f"use-m3-{code}",), genders)


LANGUAGES: dict[str, Language] = {
    "en": Language("en", "English", False, ("en-w2v-gnews", "use-m3-en"), ()),
    "es": Language("es", "Spanish", True, ("muse-es", "use-m3-es"), FM),
    "fr": Language("fr", "French", True, ("fr-spacy-md", "use-m3-fr"), FM),
    "de": Language("de", "German", True, ("muse-de", "use-m3-de"), FMN),
    "ar": _use_only("ar", "Arabic", FM),
    "it": _use_only("it", "Italian", FM),
    "ja": _use_only("ja", "Japanese", ()),
    "ko": _use_only("ko", "Korean", ()),
    "nl": _use_only("nl", "Dutch", ("common", "neuter")),
    "pl": _use_only("pl", "Polish", FMN),
    "pt": _use_only("pt", "Portuguese", FM),
    "ru": _use_only("ru", "Russian", FMN),
    "th": _use_only("th", "Thai", ()),
    "tr": _use_only("tr", "Turkish", ()),
    "zh-cn": _use_only("zh-cn", "Chinese (simplified)", ()),
    "zh-tw": _use_only("zh-tw", "Chinese (traditional)", ()),
}


def normalise_code(code: str) -> str:
    """``code`` lower-cased with ``_`` read as ``-`` (``zh_TW`` → ``zh-tw``); not validated."""
    return str(code).strip().lower().replace("_", "-")


def code_pattern(codes=None) -> str:
    """A regular expression (ECMA and Python alike) matching every language code, or those of
    ``codes``, in any letter case with surrounding spaces, as :func:`get_language` reads them
    (a JSON Schema ``pattern``).

    >>> import re
    >>> bool(re.fullmatch(code_pattern(["zh-tw"]), " ZH-tw ")), bool(re.fullmatch(code_pattern(["fr"]), "es"))
    (True, False)
    """

    def case_free(code: str) -> str:
        return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in code)

    return r"^\s*(?:" + "|".join(case_free(c) for c in (LANGUAGES if codes is None else codes)) + r")\s*$"


def get_language(code: str) -> Language:
    """Return the :class:`Language` for a code (ISO 639-1; ``zh-cn``/``zh-tw``).

    Raises
    ------
    InputError
        Unknown code; the message lists the supported ones.
    """
    try:
        return LANGUAGES[normalise_code(code)]
    except (KeyError, AttributeError, TypeError):
        raise InputError(
            f"unknown language {code!r}; supported: {', '.join(LANGUAGES)}"
        ) from None
