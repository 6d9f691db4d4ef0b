"""SEAT: the Sentence Encoder Association Test (May et al. 2019), grammatical-gender aware.

Each word of a WEAT test's four sets is put into every template of the language
(``wordlists/<lang>/seat_templates.tsv``, written by us); the sentences of a set are that set's
items, each sentence is encoded once by a sentence encoder, and the WEAT statistic, effect size
and permutation p-value (:func:`geobias.metrics.weat`, our one permutation engine) are computed
over the sentence vectors. For English the templates are "bleached" as May et al.'s ("This is
the {word}.", "{Word} is here."...). For Spanish, French and German, templates with an article
(``un/una``, ``un/une``, ``ein/eine``) are used only for nouns whose grammatical gender our noun
lists give, with the article that agrees; every word also gets the templates without an article.
So no sentence carries an article that disagrees with its noun — the agreement a sentence
encoder would otherwise read as gender.

The encoder is a function from sentences to vectors, so this module needs no model code; the
command layer builds it with :func:`geobias.contextual.sentence_encoders.sentence_encoder`.

References
----------
May, Wang, Bordia, Bowman, Rudinger (2019). On Measuring Social Biases in Sentence Encoders.
NAACL, §2 (SEAT: WEAT over template sentences) and Table 3 (tests 6, 6b, 7, 7b, 8, 8b).
Caliskan, Bryson, Narayanan (2017). Science 356:183 (WEAT, tests 6-8).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from geobias.errors import InputError
from geobias.query import WordQuery
from geobias.results import Result
from geobias.store import VectorStore


@dataclass(frozen=True)
class SeatTemplates:
    """A language's SEAT templates: ``any`` for every word, ``masculine``/``feminine``/``neuter``
    only for nouns of that grammatical gender (the article agrees)."""

    lang: str
    any: list[str]
    by_gender: dict[str, list[str]] = field(default_factory=dict)


def read_templates(lang: str) -> SeatTemplates:
    """Our ``wordlists/<lang>/seat_templates.tsv`` (``kind<TAB>template``; ``{word}`` is the
    slot, ``{Word}`` the slot capitalised).

    Raises
    ------
    InputError
        No template file for ``lang``, an unknown kind, a template without exactly one slot.
    """
    from geobias import wordlists

    rows = wordlists.own_table(lang, "seat_templates", required=("kind", "template"))
    out = SeatTemplates(lang, [], {"masculine": [], "feminine": [], "neuter": []})
    for row in rows:
        kind, template = row["kind"].strip(), row["template"].strip()
        if template.count("{word}") + template.count("{Word}") != 1:
            raise InputError(f"seat_templates.tsv ({lang}): a template needs exactly one {{word}} slot: {template!r}")
        if kind == "any":
            out.any.append(template)
        elif kind in out.by_gender:
            out.by_gender[kind].append(template)
        else:
            raise InputError(f"seat_templates.tsv ({lang}): unknown kind {kind!r} (any, masculine, feminine, neuter)")
    if not out.any:
        raise InputError(f"seat_templates.tsv ({lang}): no template of kind 'any'")
    return out


def _fill(template: str, word: str) -> str:
    return template.replace("{Word}", word[:1].upper() + word[1:]).replace("{word}", word)


def sentences_for(words: Sequence[str], templates: SeatTemplates, genders: dict[str, str]) -> list[str]:
    """Every sentence of ``words``: each word in each ``any`` template, and in the templates of
    its grammatical gender when ``genders`` knows it; in word order, duplicates kept once.

    Examples
    --------
    >>> t = SeatTemplates("fr", ["C'est {word}."], {"feminine": ["C'est une {word}."]})
    >>> sentences_for(["table", "livre"], t, {"table": "feminine"})
    ["C'est table.", "C'est une table.", "C'est livre."]
    """
    out: list[str] = []
    for w in words:
        for t in templates.any + templates.by_gender.get(genders.get(w, ""), []):
            out.append(_fill(t, w))
    return list(dict.fromkeys(out))


def noun_genders(lang: str) -> dict[str, str]:
    """Word → ``"masculine"``/``"feminine"`` from our gendered noun lists (empty for a language
    without grammatical gender); a word on both lists gets none."""
    from geobias import wordlists
    from geobias.languages import get_language

    if not get_language(lang).grammatical_gender:
        return {}
    masc, fem = wordlists.gendered_nouns(lang)
    both = set(masc) & set(fem)
    out = {w: "masculine" for w in masc if w not in both}
    out.update({w: "feminine" for w in fem if w not in both})
    return out


@dataclass(frozen=True)
class SeatResult(Result):
    """A SEAT test (May et al. 2019).

    Attributes
    ----------
    test : str
    lang : str
    encoder : str
    statistic, effect_size, p_value : float
        WEAT's s(X, Y, A, B), its effect size (ddof 1) and one-sided permutation p over the
        sentences (Caliskan et al.'s test, as May et al. apply it).
    n_sentences : dict
        Sentences per set ``{"X", "Y", "A", "B"}``.
    n_templates : dict
        ``{"any": n, "masculine": n, ...}`` of the language's templates.
    n_gendered_words : int
        Words that also got the article templates of their grammatical gender.
    n_permutations : int
    exact : bool
    seed : int or None
    examples : list of str
        The first sentences of X, for the reader.
    """

    test: str
    lang: str
    encoder: str
    statistic: float
    effect_size: float | None
    p_value: float
    n_sentences: dict
    n_templates: dict
    n_gendered_words: int
    n_permutations: int
    exact: bool
    seed: int | None
    examples: list = field(default_factory=list)


def seat(
    encode: Callable[[list[str]], np.ndarray],
    query: WordQuery,
    *,
    lang: str,
    encoder_name: str = "",
    test: str = "",
    templates: SeatTemplates | None = None,
    genders: dict[str, str] | None = None,
    n_permutations: int = 10_000,
    seed: int | None = 0,
) -> SeatResult:
    """SEAT on the word sets ``(X, Y, A, B)`` of a WEAT test.

    Parameters
    ----------
    encode : callable
        Sentences → unit vectors, shape (n, dim) (see
        :func:`geobias.contextual.sentence_encoders.sentence_encoder`).
    query : WordQuery
        Target and attribute words (X, Y, A, B); each word becomes its templates' sentences, and
        WEAT runs on the query of those sentences (a sentence encoder has no vocabulary to lose).
    lang : str
    templates : SeatTemplates, optional
        Default: :func:`read_templates` of ``lang``.
    genders : dict, optional
        Word → grammatical gender; default :func:`noun_genders` of ``lang``.
    n_permutations : int, default 10_000
    seed : int or None, default 0

    Returns
    -------
    SeatResult

    Raises
    ------
    InputError
        An empty set, a set whose sentences coincide with another set's, no template.

    Examples
    --------
    >>> from geobias.contextual.sentence_encoders import sentence_encoder  # doctest: +SKIP
    >>> enc = sentence_encoder("use-m3")  # doctest: +SKIP
    >>> seat(enc, WordQuery(X, Y, A, B), lang="es", test="math-arts").effect_size  # doctest: +SKIP
    """
    from geobias.metrics import weat

    templates = templates or read_templates(lang)
    genders = noun_genders(lang) if genders is None else genders
    names = ("X", "Y", "A", "B")
    if not isinstance(query, WordQuery) or query.Y is None:
        raise InputError("SEAT takes a WordQuery of four word sets (X, Y, A, B)")
    sets = (query.X, query.Y, query.A, query.B)
    if any(not list(s) for s in sets):
        raise InputError("SEAT needs four non-empty word sets (X, Y, A, B)")
    sentences = [sentences_for(list(s), templates, genders) for s in sets]
    seen: dict[str, str] = {}
    for name, group in zip(names, sentences, strict=True):
        for sent in group:
            if sent in seen and seen[sent] != name:
                raise InputError(f"the sentence {sent!r} is in set {seen[sent]} and set {name}: a word is in two sets")
            seen[sent] = name
    every = [s for group in sentences for s in group]
    vectors = encode(every)
    store = VectorStore(every, vectors, lang=lang)
    r = weat(store, WordQuery(*sentences, name=test or "custom"), n_permutations=n_permutations, seed=seed,
             test=test)
    words = {w for s in sets for w in s}
    return SeatResult(
        test=test, lang=lang, encoder=encoder_name, statistic=float(r.statistic),
        effect_size=None if r.effect_size is None else float(r.effect_size), p_value=float(r.p_value),
        n_sentences={n: len(g) for n, g in zip(names, sentences, strict=True)},
        n_templates={"any": len(templates.any), **{k: len(v) for k, v in templates.by_gender.items()}},
        n_gendered_words=sum(1 for w in words if genders.get(w) in templates.by_gender
                             and templates.by_gender[genders[w]]),
        n_permutations=int(r.permutation.n_permutations), exact=bool(r.permutation.exact),
        seed=r.permutation.seed, examples=sentences[0][:4],
    )
