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
from geobias.metrics.bootstrap import weat_resampling
from geobias.metrics.coverage import notes as coverage_notes
from geobias.metrics.declaration import Metric, declare
from geobias.query import WordQuery
from geobias.results import Result
from geobias.stats.bootstrap import BootstrapResult
from geobias.store import VectorStore

__all__ = ["SEAT_FILE_SETS", "SENT_BIAS_SAMPLES", "WORD_KINDS", "SeatResult", "SeatTemplates", "SeatTestFile", "WordKind", "noun_genders",
           "word_permutation_test",
           "parse_seat_test", "parse_seat_tests", "read_seat_test", "read_seat_tests", "read_templates", "read_word_kinds", "seat", "seat_sentences",
           "sentences_for"]


#: The permutation budget of SEAT by default: sent-bias's ``n_samples`` default (``sentbias/main.py``).
#: Its ``weat.py`` enumerates every partition of X ∪ Y when there are at most this many
#: (``C(16, 8) = 12,870`` for a test of eight sentences per target set) and otherwise draws this many;
#: with ``n_permutations`` equal to it, our ``"auto"`` permutation test makes the same choice.
SENT_BIAS_SAMPLES = 100_000

#: Kinds of word with their own templates (May et al.'s per-kind bleaching); see ``seat_words.tsv``.
#: ``mass``: a noun with its partitive or none ("C'est de la poésie.", "This is math."); ``abstract``:
#: a noun that names one thing and takes the definite article ("C'est la mort.", "This is the
#: stink."); ``title``: a form of address, without an article ("Madame est là."); ``state``: a
#: Spanish adjective of a state, with *estar* ("Está podrido.").
WORD_KINDS = ("name", "proper", "title", "subject", "object", "possessive", "count", "plural", "mass", "abstract",
              "bare", "adjective", "state", "verb")


@dataclass(frozen=True)
class SeatTemplates:
    """A language's SEAT templates: ``any`` for every word without a kind,
    ``masculine``/``feminine``/``neuter`` only for nouns of that grammatical gender (the article
    agrees), and ``by_kind`` for the words whose kind ``seat_words.tsv`` gives (a name, a pronoun,
    a count noun with its article and plural...)."""

    lang: str
    any: list[str]
    by_gender: dict[str, list[str]] = field(default_factory=dict)
    by_kind: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class WordKind:
    """The kind of one word (:data:`WORD_KINDS`), for a count noun its plural, and for a noun of a
    language with grammatical gender its gender (``"m"``/``"f"``), which picks the articles."""

    kind: str
    plural: str = ""
    gender: str = ""


#: French articles by slot and gender; ``elided`` before a vowel or a mute h.
_FR_ARTICLES = {"un": {"m": "un", "f": "une"}, "le": {"m": "le", "f": "la", "elided": "l'"},
                "du": {"m": "du", "f": "de la", "elided": "de l'"}}
#: French words beginning with a mute h (elided: l'homme); any other h is aspirated (la haine).
_FR_MUTE_H = frozenset({"homme", "hommes", "honneur", "heure", "histoire", "hiver", "herbe", "huile", "humanité"})


def _fr_elides(word: str) -> bool:
    return word[:1].lower() in "aâàeéèêëiîïoôœuùûy" or word.lower() in _FR_MUTE_H


#: Spanish articles by slot and gender.
_ES_ARTICLES = {"un": {"m": "un", "f": "una"}, "el": {"m": "el", "f": "la"}, "unos": {"m": "unos", "f": "unas"},
                "los": {"m": "los", "f": "las"}}
#: Feminine Spanish nouns with a stressed initial a, which take el/un in the singular (el álgebra).
_ES_STRESSED_A = frozenset({"álgebra", "agua", "alma", "arma", "área", "águila", "aula", "hambre", "hacha"})


#: German articles (nominative) by slot and gender; ``ding``: the bleached noun after a possessive.
_DE_ARTICLES = {"ein": {"m": "ein", "f": "eine", "n": "ein"}, "der": {"m": "der", "f": "die", "n": "das"},
                "ding": {"m": "Hut", "f": "Sache", "n": "Buch"}}


def _articles(lang: str, word: str, gender: str) -> dict[str, str]:
    """The article slots of ``word`` (``{a}`` in English; ``{un}``, ``{le}``, ``{du}`` in French;
    ``{un}``, ``{el}``, ``{unos}``, ``{los}`` in Spanish)."""
    if lang == "de":
        return {slot: forms[gender or "n"] for slot, forms in _DE_ARTICLES.items()}
    if lang == "es":
        g = "m" if word.lower() in _ES_STRESSED_A else (gender or "m")
        out = {slot: forms[g] for slot, forms in _ES_ARTICLES.items() if slot in ("un", "el")}
        out.update({slot: forms[gender or "m"] for slot, forms in _ES_ARTICLES.items() if slot in ("unos", "los")})
        return out
    if lang == "fr":
        out = {}
        for slot, forms in _FR_ARTICLES.items():
            form = forms["elided"] if "elided" in forms and _fr_elides(word) else forms.get(gender, forms["m"])
            out[slot] = form
        return out
    return {"a": "an" if word[:1].lower() in "aeiou" else "a"}


def read_word_kinds(lang: str) -> dict[str, WordKind]:
    """Our ``wordlists/<lang>/seat_words.tsv`` (``word<TAB>kind<TAB>plural[<TAB>gender]``); empty
    when the language has none. ``plural`` is a count noun's plural, or for a word of kind
    ``plural`` the form its templates need after the article, where it differs from the listed one
    (a German nominalised adjective declines: *Verwandte*, *die Verwandten*).

    Raises
    ------
    InputError
        An unknown kind, or a count noun without its plural.
    """
    from geobias import wordlists

    path = wordlists.wordlist_dir() / lang / "seat_words.tsv"
    if not path.exists():
        return {}
    out: dict[str, WordKind] = {}
    for row in wordlists.own_table(lang, "seat_words", required=("word", "kind", "plural")):
        word, kind, plural = row["word"].strip(), row["kind"].strip(), (row.get("plural") or "").strip()
        gender = (row.get("gender") or "").strip()
        if kind not in WORD_KINDS:
            raise InputError(f"seat_words.tsv ({lang}): unknown kind {kind!r} for {word!r} ({', '.join(WORD_KINDS)})")
        if kind == "count" and not plural:
            raise InputError(f"seat_words.tsv ({lang}): the count noun {word!r} needs its plural")
        if gender not in ("", "m", "f", "n"):
            raise InputError(f"seat_words.tsv ({lang}): the gender of {word!r} must be m, f or n; got {gender!r}")
        out[word] = WordKind(kind, plural, gender)
    return out


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
        if template.count("{word}") + template.count("{Word}") + template.count("{plural}") != 1:
            raise InputError(f"seat_templates.tsv ({lang}): a template needs exactly one {{word}} slot: {template!r}")
        if kind == "any":
            out.any.append(template)
        elif kind in out.by_gender:
            out.by_gender[kind].append(template)
        elif kind in WORD_KINDS:
            out.by_kind.setdefault(kind, []).append(template)
        else:
            raise InputError(f"seat_templates.tsv ({lang}): unknown kind {kind!r} (any, masculine, feminine, neuter, "
                             f"{', '.join(WORD_KINDS)})")
    if not out.any:
        raise InputError(f"seat_templates.tsv ({lang}): no template of kind 'any'")
    return out


def _fill(template: str, word: str, plural: str = "", gender: str = "", lang: str = "en") -> str:
    import re

    out = template.replace("{Word}", word[:1].upper() + word[1:]).replace("{word}", word)
    out = out.replace("{plural}", plural or word)
    for slot, form in _articles(lang, word, gender).items():
        out = out.replace("{" + slot + "}", form).replace("{" + slot.capitalize() + "}", form[:1].upper() + form[1:])
    out = re.sub(r"(?<![A-Za-z])([lL]') ", r"\1", out)  # l' joins its word: l'homme
    if lang == "es":
        out = re.sub(r"\bde el\b", "del", out)
    return out


def sentences_for(words: Sequence[str], templates: SeatTemplates, genders: dict[str, str],
                  kinds: dict[str, WordKind] | None = None, avoid: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Every sentence of ``words``, in word order, duplicates kept once. A word whose kind
    ``kinds`` gives and the templates have goes into its kind's templates only (a word of kind
    ``plural`` with its ``plural`` form there, where one is given: German *die Verwandten* for the
    listed *Verwandte*; a count noun also
    into the ``plural`` templates with its plural, unless that plural is itself one of the words
    in ``avoid``, such as Spanish *padres* (parents) beside *padre*; ``{a}`` is the agreeing a/an); any other word
    into each ``any`` template, and into the templates of its grammatical gender when ``genders``
    knows it.

    Examples
    --------
    >>> t = SeatTemplates("fr", ["C'est {word}."], {"feminine": ["C'est une {word}."]})
    >>> sentences_for(["table", "livre"], t, {"table": "feminine"})
    ["C'est table.", "C'est une table.", "C'est livre."]
    >>> en = SeatTemplates("en", ["This is {word}."], {}, {"count": ["This is {a} {word}."],
    ...                    "plural": ["These are {plural}."], "subject": ["{Word} is here."]})
    >>> sentences_for(["apple", "he"], en, {}, {"apple": WordKind("count", "apples"), "he": WordKind("subject")})
    ['This is an apple.', 'These are apples.', 'He is here.']
    """
    kinds = kinds or {}
    out: list[str] = []
    for w in words:
        k = kinds.get(w)
        if k is not None and templates.by_kind.get(k.kind):
            out += [_fill(t, w, k.plural, k.gender, templates.lang) for t in templates.by_kind[k.kind]]
            if k.kind == "count" and not (k.plural != w and k.plural in avoid):
                out += [_fill(t, w, k.plural, k.gender, templates.lang) for t in templates.by_kind.get("plural", [])]
            continue
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
    statistic, effect_size : float
        WEAT's s(X, Y, A, B) on the sentences and its effect size (ddof 1).
    p_value : float
        The one-sided permutation p of the statistic, over the unit named by ``p_unit``. For
        sentences made from words (our templates), the **words** of X ∪ Y are re-partitioned, each
        bringing all its sentences (the statistic is unchanged: Σ over the X sentences minus Σ over
        the Y sentences): the sentences of one word share that word and are not exchangeable with
        another word's, and May et al.'s test over the sentences rejects a true null too often
        (simulated sentence vectors, 5 templates per word, 2,000 data sets: 14.5–16.75 % at the 5 %
        level; this test 3.0–3.3 %, docs: calibration). For a test file's sentences (no words to
        group them by) it is May et al.'s test over the sentences, equal to ``sentence_p_value``.
    p_unit : str
        ``"words"`` or ``"sentences"``: what ``p_value`` re-partitions.
    sentence_p_value : float
        May et al.'s test (Caliskan et al.'s, run on the sentences as if each were drawn on its
        own), as sent-bias's ``weat.py`` computes it: the paper's p.
    sentence_exact : bool
        Whether ``sentence_p_value`` enumerated every partition of the sentences.
    n_sentences : dict
        Sentences per set ``{"X", "Y", "A", "B"}``.
    n_templates : dict
        ``{"any": n, "masculine": n, ...}`` of the language's templates.
    n_gendered_words : int
        Words whose sentences carry the articles of their grammatical gender (from their kind's
        templates, or the gendered templates of our noun lists).
    n_permutations : int
        Permutations behind ``p_value`` (the partitions, when it enumerated them all).
    exact : bool
        Whether ``p_value`` enumerated every partition of its units.
    seed : int or None
    examples : list of str
        The first sentences of X, for the reader.
    source : str or None
        The SEAT test file the sentences came from (``None``: our templates).
    categories : dict or None
        A test file's category names ``{"X": "MaleNames", "Y": ..., "A": ..., "B": ...}``
        (its ``targ1``, ``targ2``, ``attr1``, ``attr2``).
    more_tests : list of SeatResult
        With several test files: the results of the second and later files (this object is the
        first's), in the order given.
    sentences : dict or None
        With ``show_sentences``: ``{"X": [...], "Y", "A", "B"}``, every sentence encoded.
    bootstrap : BootstrapResult or None
        The bootstrap of the effect size over the words of each set (resampled with replacement
        within the set, each drawn word bringing all its sentences); ``None`` unless asked for.
    bootstrap_note : str or None
        Why there is no ``bootstrap`` when a command gave none: its default where a bootstrap does
        not apply (or a set too small to resample), or 0 resamples asked for; ``None`` otherwise.
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
    source: str | None = None
    categories: dict | None = None
    more_tests: list[SeatResult] = field(default_factory=list)
    sentences: dict | None = None
    bootstrap: BootstrapResult | None = None
    bootstrap_note: str | None = None
    p_unit: str = "sentences"
    sentence_p_value: float | None = None
    sentence_exact: bool | None = None


def _sentence_words(sets, sentences, templates, genders, kinds, avoid) -> dict[str, np.ndarray]:
    """Per set, the word (0..n_used − 1, in set order) each sentence was made from."""
    groups = {}
    for name, words, group in zip(("X", "Y", "A", "B"), sets, sentences, strict=True):
        owner: dict[str, int] = {}
        for i, w in enumerate(words):  # a sentence belongs to the first word that makes it (sentences_for's order)
            for sent in sentences_for([w], templates, genders, kinds, avoid):
                owner.setdefault(sent, i)
        used = sorted({owner[s] for s in group})
        renumber = {old: new for new, old in enumerate(used)}
        groups[name] = np.array([renumber[owner[s]] for s in group], dtype=np.intp)
    return groups


def word_permutation_test(r, groups: dict[str, np.ndarray], n_permutations: int = SENT_BIAS_SAMPLES,
                          seed: int | None = 0):
    """SEAT's one-sided test with the words of X ∪ Y re-partitioned, each with all its sentences.

    The permutation test of the per-word sums of the sentences' scores ``s(sentence, A, B)``; their
    ``Σ_X − Σ_Y`` is WEAT's statistic on the sentences, so only the unit that is exchanged changes
    (a word instead of a sentence: a word's sentences share it, and are not exchangeable with
    another word's).

    Parameters
    ----------
    r : WeatResult
        WEAT run on the sentences (its ``per_word`` gives each X and Y sentence's score, in order).
    groups : dict {"X", "Y"} of ndarray of int, shape (n_sentences,)
        The word (0..n_words − 1) each sentence of the set was made from.
    n_permutations : int, default ``SENT_BIAS_SAMPLES`` (100,000)
        Budget: exact enumeration of the word partitions when they number at most this many.
    seed : int or None, default 0

    Returns
    -------
    PermutationResult or None
        ``None`` when the sentences were not scored one by one (a count differs from ``groups``) or
        X ∪ Y has fewer than 3 words.

    References
    ----------
    May et al. (2019), NAACL (SEAT, its sentence-level test); Caliskan et al. (2017), Science (the
    statistic). The word-level grouping is ours (docs: calibration).

    Examples
    --------
    >>> from types import SimpleNamespace as N
    >>> r = N(per_word=[N(target=t, s=v) for t, v in [("X", 1.0), ("X", 1.0), ("X", 2.0), ("X", 2.0),
    ...                                              ("Y", 0.0), ("Y", 0.0), ("Y", -1.0), ("Y", -1.0)]])
    >>> g = {"X": np.array([0, 0, 1, 1]), "Y": np.array([0, 0, 1, 1])}
    >>> t = word_permutation_test(r, g)
    >>> t.exact, round(t.p_value, 4)   # 6 partitions of 4 words; the observed one is the largest
    (True, 0.1667)
    """
    from geobias.stats.permutation import permutation_test

    score = {}
    for a in r.per_word:
        score.setdefault(a.target, []).append(a.s)
    if any(len(score.get(t, ())) != len(groups[t]) for t in ("X", "Y")):
        return None  # the sentences were not all scored one by one: no grouping to test
    sums = [np.bincount(groups[t], weights=np.asarray(score[t], dtype=np.float64)) for t in ("X", "Y")]
    if len(sums[0]) + len(sums[1]) < 3:
        return None
    return permutation_test(np.concatenate(sums), len(sums[0]), n_permutations=n_permutations, seed=seed)


def _word_bootstrap(store, sentences, groups: dict[str, np.ndarray], n_resamples: int, seed: int | None):
    """The bootstrap of the effect size over each set's words, each bringing its sentences
    (``groups``: :func:`_sentence_words`)."""
    from dataclasses import replace

    from geobias.metrics.bootstrap import interval_note, refuse_resampling, run, seat_resampling

    rows = {name: store.lookup(group, unit=True).vectors
            for name, group in zip(("X", "Y", "A", "B"), sentences, strict=True)}
    try:
        out = run(seat_resampling(rows, groups), n_resamples=n_resamples, seed=seed)
    except InputError as exc:
        refuse_resampling(exc)
        return None
    # the words are resampled, each with its sentences: the note reads the fewest words in a set
    return replace(out, quantity="effect_size", note=interval_note("seat", "effect_size", out.set_sizes))


def seat(
    encode: Callable[[list[str]], np.ndarray],
    query: WordQuery,
    *,
    lang: str,
    encoder_name: str = "",
    test: str = "",
    templates: SeatTemplates | None = None,
    genders: dict[str, str] | None = None,
    kinds: dict[str, WordKind] | None = None,
    n_permutations: int = SENT_BIAS_SAMPLES,
    seed: int | None = 0,
    show_sentences: bool = False,
    bootstrap: int = 0,
    bootstrap_seed: int | None = 0,
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
    kinds : dict, optional
        Word → :class:`WordKind`; default :func:`read_word_kinds` of ``lang``.
    n_permutations : int, default ``SENT_BIAS_SAMPLES`` (100,000)
        The permutation budget of both tests (``p_value`` over the words of X ∪ Y, each with its
        sentences; ``sentence_p_value`` over the sentences): every partition is enumerated when
        there are at most this many (sent-bias's rule), else this many Monte-Carlo draws.
    seed : int or None, default 0
    show_sentences : bool, default False
        Put every sentence of each set into the result (``sentences``), for review.
    bootstrap : int, default 0
        Resamples of the bootstrap over the words of each set, each drawn word with all its
        sentences (:func:`geobias.metrics.bootstrap.seat_resampling`); 0 computes none.
    bootstrap_seed : int or None, default 0

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
    kinds = read_word_kinds(lang) if kinds is None else kinds
    every_word = frozenset(w for s in sets for w in s)
    sentences = [sentences_for(list(s), templates, genders, kinds, every_word) for s in sets]
    seen: dict[str, str] = {}
    for name, group in zip(names, sentences, strict=True):
        for sent in group:
            if sent in seen and seen[sent] != name:
                raise InputError(f"the sentence {sent!r} is in set {seen[sent]} and set {name}: a word is in two sets")
            seen[sent] = name
    every = [s for group in sentences for s in group]
    vectors = encode(every)
    store = VectorStore(every, vectors, lang=lang)
    r = weat(store, WordQuery(*sentences, name=test or "custom"), permutations=n_permutations, seed=seed,
             test=test)
    groups = _sentence_words(sets, sentences, templates, genders, kinds, every_word)
    boot = _word_bootstrap(store, sentences, groups, bootstrap, bootstrap_seed) if bootstrap else None
    by_word = word_permutation_test(r, groups, n_permutations, seed)
    test_ = r.permutation if by_word is None else by_word  # the words when they group the sentences
    words = {w for s in sets for w in s}
    return SeatResult(
        test=test, lang=lang, encoder=encoder_name, statistic=float(r.statistic),
        effect_size=None if r.effect_size is None else float(r.effect_size), p_value=float(test_.p_value),
        p_unit="sentences" if by_word is None else "words", sentence_p_value=float(r.p_value),
        sentence_exact=bool(r.permutation.exact),
        n_sentences={n: len(g) for n, g in zip(names, sentences, strict=True)},
        n_templates={"any": len(templates.any), **{k: len(v) for k, v in templates.by_gender.items()},
                     **{k: len(v) for k, v in templates.by_kind.items()}},
        n_gendered_words=sum(1 for w in words if (w in kinds and kinds[w].gender and kinds[w].kind in templates.by_kind)
                             or (w not in kinds and genders.get(w) in templates.by_gender
                                 and templates.by_gender[genders[w]])),
        n_permutations=int(test_.n_permutations), exact=bool(test_.exact), seed=test_.seed, examples=sentences[0][:4],
        sentences=dict(zip(names, sentences, strict=True)) if show_sentences else None,
        bootstrap=boot,
    )


#: The four sets of a SEAT test file, in WEAT's order X, Y, A, B.
SEAT_FILE_SETS = ("targ1", "targ2", "attr1", "attr2")


@dataclass(frozen=True)
class SeatTestFile(Result):
    """A SEAT test as May et al. publish them (sent-bias ``tests/*.jsonl``): one JSON object with
    ``targ1``, ``targ2``, ``attr1``, ``attr2``, each ``{"category": str, "examples": [sentence, ...]}``.

    Attributes
    ----------
    name : str
        The test's name: the file name without its extension (``sent-weat6``).
    source : str
        Where it was read.
    categories : dict
        ``{"X", "Y", "A", "B"}`` → the sets' ``category``.
    sets : tuple of list of str
        The sentences of X (``targ1``), Y, A, B, in the file's order.
    """

    name: str
    source: str
    categories: dict
    sets: tuple


def parse_seat_test(text: str, *, name: str, source: str) -> SeatTestFile:
    """A SEAT test from the text of its JSON file (see :class:`SeatTestFile`).

    Raises
    ------
    InputError
        One line naming ``source`` and the problem: not JSON, not the four sets, a set without a
        category or examples, an empty set, a sentence that is not a non-empty string, a
        sentence twice in a set or in two sets.

    Examples
    --------
    >>> t = parse_seat_test('{"targ1": {"category": "M", "examples": ["He is here."]}, '
    ...                     '"targ2": {"category": "F", "examples": ["She is here."]}, '
    ...                     '"attr1": {"category": "C", "examples": ["Work."]}, '
    ...                     '"attr2": {"category": "H", "examples": ["Home."]}}', name="t", source="t.jsonl")
    >>> t.categories["X"], t.sets[2]
    ('M', ['Work.'])
    """
    import json

    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(f"{source}: not a SEAT test file (not JSON: {exc})") from None
    if not isinstance(data, dict) or set(data) != set(SEAT_FILE_SETS):
        keys = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise InputError(f"{source}: not a SEAT test file (a JSON object with exactly {', '.join(SEAT_FILE_SETS)}; "
                         f"found {keys})")
    categories, sets, seen = {}, [], {}
    for key, role in zip(SEAT_FILE_SETS, ("X", "Y", "A", "B"), strict=True):
        part = data[key]
        if not isinstance(part, dict) or not isinstance(part.get("category"), str) or "examples" not in part:
            raise InputError(f"{source}: {key} needs a 'category' (text) and 'examples' (a list of sentences)")
        examples = part["examples"]
        if not isinstance(examples, list) or not examples:
            raise InputError(f"{source}: {key} ({part['category']}) has no sentences")
        for s in examples:
            if not isinstance(s, str) or not s.strip():
                raise InputError(f"{source}: {key} ({part['category']}) has an empty or non-text sentence: {s!r}")
            if s in seen:
                where = "twice in " + key if seen[s] == key else f"in {seen[s]} and {key}"
                raise InputError(f"{source}: the sentence {s!r} is {where} (sentences must be distinct)")
            seen[s] = key
        categories[role] = part["category"]
        sets.append(list(examples))
    return SeatTestFile(name=name, source=source, categories=categories, sets=tuple(sets))


def parse_seat_tests(text: str, *, name: str, source: str) -> list[SeatTestFile]:
    """The SEAT tests of a text holding one test file's JSON object, or several one after another
    (as ``cat sent-weat6.jsonl sent-weat7.jsonl`` gives, or a form's one text box).

    One object is :func:`parse_seat_test` of the text. Several are named ``name:1``, ``name:2``...
    and their messages name ``source (test k)``.

    Raises
    ------
    InputError
        As :func:`parse_seat_test`, naming ``source`` (and the test's place when there are several);
        a text with no test at all.

    Examples
    --------
    >>> one = ('{"targ1": {"category": "M", "examples": ["He is here."]}, '
    ...        '"targ2": {"category": "F", "examples": ["She is here."]}, '
    ...        '"attr1": {"category": "C", "examples": ["Work."]}, '
    ...        '"attr2": {"category": "H", "examples": ["Home."]}}')
    >>> [t.name for t in parse_seat_tests(one + "\\n" + one, name="pasted", source="tests")]
    ['pasted:1', 'pasted:2']
    """
    import json

    decoder, chunks, at = json.JSONDecoder(), [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            break
        try:
            _, end = decoder.raw_decode(text, at)
        except ValueError as exc:
            if not chunks:  # the whole text: the message of one file
                return [parse_seat_test(text, name=name, source=source)]
            raise InputError(f"{source}: not a SEAT test file (not JSON after test {len(chunks)}: {exc})") from None
        chunks.append(text[at:end])
        at = end
    if not chunks:
        raise InputError(f"{source}: not a SEAT test file (no JSON object; the text is empty)")
    if len(chunks) == 1:
        return [parse_seat_test(chunks[0], name=name, source=source)]
    return [parse_seat_test(c, name=f"{name}:{k}", source=f"{source} (test {k})") for k, c in enumerate(chunks, 1)]


def read_seat_tests(path) -> list[SeatTestFile]:
    """:func:`parse_seat_tests` of a file: its test, or its tests one after another.

    Raises
    ------
    InputError
        The file cannot be read, or as :func:`parse_seat_tests`.
    """
    from pathlib import Path

    path = Path(path)
    name = path.name.split(".")[0] or path.name
    return parse_seat_tests(_read_seat_text(path), name=name, source=str(path))


def _read_seat_text(path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the SEAT test file ({type(exc).__name__}: {exc})") from None


def read_seat_test(path) -> SeatTestFile:
    """:func:`parse_seat_test` of a file (its name without extension names the test).

    Raises
    ------
    InputError
        The file cannot be read, or as :func:`parse_seat_test`.
    """
    from pathlib import Path

    path = Path(path)
    name = path.name.split(".")[0] or path.name
    return parse_seat_test(_read_seat_text(path), name=name, source=str(path))


def seat_sentences(
    encode: Callable[[list[str]], np.ndarray],
    test: SeatTestFile,
    *,
    lang: str = "en",
    encoder_name: str = "",
    n_permutations: int = SENT_BIAS_SAMPLES,
    seed: int | None = 0,
) -> SeatResult:
    """SEAT on the sentences of a published test file (May et al.'s ``sent-weat6.jsonl``...),
    as sent-bias's ``weat.py`` computes it: each sentence encoded once, WEAT's statistic, effect
    size (ddof 1) and one-sided permutation p over the sentence vectors (exact when the
    partitions are at most ``n_permutations``).

    Parameters
    ----------
    encode : callable
        Sentences → vectors, shape (n, dim).
    test : SeatTestFile
        From :func:`read_seat_test` or :func:`parse_seat_test`.
    lang : str, default "en"
        Recorded in the result.
    n_permutations : int, default ``SENT_BIAS_SAMPLES`` (100,000)
        The permutation budget, as sent-bias's ``n_samples``: the exact test when the partitions of
        X ∪ Y number at most this many (May et al.'s eight-sentence tests: 12,870), else this many
        Monte-Carlo draws.
    seed : int or None, default 0
        Seed of the Monte-Carlo draws (an exact test draws nothing).

    Returns
    -------
    SeatResult
        ``test`` is the file's name, ``categories`` its sets' categories.

    References
    ----------
    May et al. (2019), §2 and their ``sentbias/weat.py`` (W4ngatang/sent-bias).

    Examples
    --------
    >>> r = seat_sentences(enc, read_seat_test("sent-weat6.jsonl"))  # doctest: +SKIP
    >>> r.categories["X"], r.effect_size  # doctest: +SKIP
    """
    from geobias.metrics import weat

    every = [s for group in test.sets for s in group]
    vectors = encode(every)
    store = VectorStore(every, vectors, lang=lang)
    r = weat(store, WordQuery(*test.sets, name=test.name), permutations=n_permutations, seed=seed, test=test.name)
    return SeatResult(
        test=test.name, lang=lang, encoder=encoder_name, statistic=float(r.statistic),
        effect_size=None if r.effect_size is None else float(r.effect_size), p_value=float(r.p_value),
        sentence_p_value=float(r.p_value), sentence_exact=bool(r.permutation.exact),
        n_sentences={n: len(g) for n, g in zip(("X", "Y", "A", "B"), test.sets, strict=True)}, n_templates={},
        n_gendered_words=0, n_permutations=int(r.permutation.n_permutations), exact=bool(r.permutation.exact),
        seed=r.permutation.seed, examples=list(test.sets[0][:4]), source=test.source, categories=dict(test.categories),
    )


def _resampling(rows, *, quantity: str | None = None):
    """WEAT's resampling on the sentence rows of X, Y, A, B (:func:`seat` resamples words with their
    sentences instead: :func:`geobias.metrics.bootstrap.seat_resampling`)."""
    return weat_resampling(rows.x, rows.y, rows.a, rows.b, quantity=quantity, metric="seat")


METRIC = declare(Metric(
    "seat", seat, SeatResult, "sentences",
    summary="SEAT (May et al. 2019): WEAT over template sentences from a sentence encoder, articles agreeing.",
    sets=("X", "Y", "A", "B"), quantities=("effect_size", "statistic"), resampling=_resampling,
    basic=("effect_size",), expanded={"effect_size": ("A", "B")}, two_way={"effect_size": (("X", "Y"), ("A", "B"))},
    notes=coverage_notes("seat"),
))
