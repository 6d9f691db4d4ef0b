"""Commands on one static store: ``mweat``, ``weat``, ``directions``, ``neighbors``."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AliasChoices,
    BeforeValidator,
    Field,
    ValidationInfo,
    model_validator,
)

from geobias._progress import ProgressArg, reporter
from geobias.choices import Alternative, Approx, OOVPolicy, PermutationMethod, Similarity
from geobias.commands._base import Output, Params, command, front_of
from geobias.commands._bootstrap import BootstrapParams
from geobias.commands._fields import (
    PLOT_FORCE_HELP,
    Count,
    Lang,
    Limit,
    Seed,
    StoreRef,
    WordSet,
    check_plot,
)
from geobias.commands._guards import (
    LOST_VOCABULARY_THRESHOLD,
    LostVocabularyThreshold,
)
from geobias.commands._kinds import ARGUMENT, FORMS, PAIRS, SET_PAIR, Force, LocalFlag, Spec, capped
from geobias.commands._permutations import permutation_bar, permutation_draws, permutation_work
from geobias.commands._query import (
    TEST,
    AttributesA,
    AttributesB,
    TargetsX,
    TargetsY,
    WordQueryParams,
    need_lang,
)
from geobias.errors import InputError, ParameterError

Oov = Annotated[OOVPolicy, Spec(label="Words not in the store")]


class StoreParams(Params):
    """The store a command reads: a language's default source, or ``vectors``."""

    lang: Lang | None = None
    vectors: StoreRef = Field(None, validation_alias=AliasChoices("vectors", "store"), description=(
        "Registry name, saved store name, cached store directory or vector file (in the service: a store "
        "name); default: the language's default source."))
    limit: Limit = None
    trust_pickle: LocalFlag = Field(False, description="Allow gensim KeyedVectors files (unpickling can run code).")
    subwords: LocalFlag = Field(False, description="fastText .bin only: build vectors for out-of-vocabulary list words "
                                              "from character n-grams.")

    def store(self, progress: ProgressArg = None, wanted=None, *, lang: str | None = None):
        """Resolve the store (see :func:`geobias.sources.resolve_store`) under a progress stage."""
        from geobias.sources import record_store, resolve_store, using_opener
        from geobias.sources.opened import open_cached

        def load():
            return resolve_store(lang or self.lang, self.vectors, limit=self.limit, trust_pickle=self.trust_pickle,
                                 subword_words=wanted if self.subwords else None)

        with reporter(progress).stage("loading vectors"):
            if self.subwords or self.trust_pickle or using_opener():  # built per call, or the service's own
                return load()
            store = open_cached(lang or self.lang, self.vectors, limit=self.limit, load=load)
            return record_store(store, "--vectors", self.vectors)


class PermutationParams(Params):
    """A permutation test's budget: the single home of its checks."""

    permutations: Annotated[Count, capped("max_permutations", short="-n")] = Field(100_000, description="Monte-Carlo permutations (with permutation_method auto, the "
                                                      "exact test when fewer partitions exist).")
    permutation_method: Annotated[PermutationMethod, Spec(label="Permutation test", aliases=("--method",))] = Field(
        "auto", validation_alias=AliasChoices("permutation_method", "method"),
        description="exact (every partition), monte-carlo (random permutations) or auto (exact when there are at "
                    "most `permutations` partitions).")
    force: Force = Field(False, description="Run a permutation test above 100,000,000 partitions.")
    seed: Seed = 0


def word_rows(sizes: tuple[int, ...], shape: str, read_file, noun: str = "row"):
    """A before-validator for rows of words: a file read by ``read_file(path)`` (CLI, Python; the
    service reads no server file) or a list of rows of ``sizes`` words, each non-empty and free of
    tabs and line breaks. ``noun`` and ``shape`` name a row in messages (``"pair"``, ``"[first, second]"``)."""

    def validate_rows(value: Any, info: ValidationInfo) -> Any:
        if value is None:
            return None
        if isinstance(value, (str, Path)):
            if front_of(info) == "service":
                raise InputError(f"give a list of {shape} {noun}s")
            return [list(row) for row in read_file(Path(value).expanduser())]
        if isinstance(value, list):
            for row in value:
                if (not isinstance(row, (list, tuple)) or len(row) not in sizes
                        or not all(isinstance(w, str) and w.strip() and "\t" not in w and "\n" not in w for w in row)):
                    raise InputError(f"each {noun} is {shape}; got {row!r}")
            return [[w.strip() for w in row] for row in value]
        return value

    return validate_rows


def _occupation_file(path: Path):
    from geobias.wordlists import read_occupation_file

    return read_occupation_file(path)


def _pair_file(path: Path):
    from geobias.wordlists import read_pair_file

    return read_pair_file(path)


#: Two-form words: rows [feminine, masculine(, english)] or a TSV file of them.
OccupationRows = Annotated[list[list[str]] | None, BeforeValidator(word_rows(
    (2, 3), "[feminine, masculine] or [feminine, masculine, english]", _occupation_file, "entry"))]
#: Ordered word pairs: rows [first, second] or a file of them.
PairRows = Annotated[list[list[str]] | None, BeforeValidator(word_rows((2,), "[first, second]", _pair_file, "pair"))]


def _attribute_file(value: Any, info: ValidationInfo) -> Any:
    if value is None:
        return None
    if isinstance(value, (str, Path)):
        if front_of(info) == "service":
            raise InputError("give `attributes_a` and `attributes_b` as lists")
        from geobias.wordlists import read_attribute_file

        return [list(side) for side in read_attribute_file(Path(value).expanduser())]
    if isinstance(value, (list, tuple)):
        if (len(value) != 2 or not all(isinstance(side, (list, tuple)) and side for side in value)
                or not all(isinstance(w, str) and w.strip() for side in value for w in side)):
            raise InputError("attributes is [male words, female words]: two non-empty lists of words")
        return [[w.strip() for w in side] for side in value]
    return value


class MweatParams(StoreParams, PermutationParams, BootstrapParams):
    """Parameters of MWEAT (Zhou et al. 2019, eq. 1)."""

    targets: Annotated[OccupationRows, FORMS] = Field(None, description=(
        "Occupations: a TSV file (feminine<TAB>masculine[<TAB>english] per line: feminine first, as Zhou et al.'s "
        "lists, unlike targets_x/targets_y, masculine then feminine) or rows [feminine, masculine"
        "(, english)]; default: the language's list."))
    attributes: Annotated[list[list[str]] | None, BeforeValidator(_attribute_file), SET_PAIR] = Field(None, description=(
        "TSV file of attribute words: male<TAB>female per line (a cell may be empty or '-')."))
    targets_x: TargetsX = Field(None, description="Masculine forms (with targets_y, paired by position).")
    targets_y: TargetsY = Field(None, description="Feminine forms, same length and order as targets_x.")
    attributes_a: AttributesA = Field(None, validation_alias=AliasChoices("attributes_a", "male"),
                                         description="Male attribute words (with attributes_b).")
    attributes_b: AttributesB = Field(None, validation_alias=AliasChoices("attributes_b", "female"),
                                         description="Female attribute words.")
    similarity: Similarity = Field("cosine", description="cosine, or dot (raw dot products, to reproduce notebooks).")
    paired: Annotated[bool, Spec(label="Permute within pairs")] = Field(False, description="Permute only within each pair (an extension; the paper permutes X∪Y).")
    oov: Oov = Field("ignore", description="Out-of-vocabulary list words: ignore (skip them and list them in the result) "
                                          "or raise (stop at the first).")
    lost_vocabulary_threshold: LostVocabularyThreshold = LOST_VOCABULARY_THRESHOLD

    @model_validator(mode="after")
    def _sets(self):
        both_or_neither(self, "targets_x", "targets_y")
        both_or_neither(self, "attributes_a", "attributes_b")
        if self.targets_x is not None and self.targets is not None:
            raise ParameterError("give targets or targets_x/targets_y, not both", "targets")
        if self.attributes_a is not None and self.attributes is not None:
            raise ParameterError("give attributes or attributes_a/attributes_b, not both", "attributes")
        if self.targets_x is not None and len(self.targets_x) != len(self.targets_y):
            raise InputError(f"`targets_x` has {len(self.targets_x)} words and `targets_y` {len(self.targets_y)}; "
                             "they pair masculine and feminine forms by position")
        return self

    def occupations(self):
        """The two-form target words (:class:`geobias.wordlists.TwoFormWord`)."""
        from geobias import wordlists

        if self.targets_x is not None:
            return [wordlists.TwoFormWord(f, m, m) for m, f in zip(self.targets_x, self.targets_y, strict=True)]
        if self.targets is not None:
            return [wordlists.TwoFormWord(r[0], r[1], r[2] if len(r) == 3 else r[1]) for r in self.targets]
        return wordlists.occupations(need_lang(self.lang, "occupation list"))

    def attribute_sets(self) -> tuple[list[str], list[str]]:
        from geobias import wordlists

        if self.attributes_a is not None:
            return list(self.attributes_a), list(self.attributes_b)
        if self.attributes is not None:
            return list(self.attributes[0]), list(self.attributes[1])
        return wordlists.attribute_words(need_lang(self.lang, "attribute words"))

    def work(self):
        """One permutation test over the 2 × occupations forms (sizes before OOV words are dropped)."""
        n = len(self.occupations())
        est = permutation_work(2 * n, n, self.permutations, self.permutation_method, paired=self.paired)
        return self.with_bootstrap(est, 2 * n + sum(map(len, self.attribute_sets())))


def both_or_neither(params: Params, a: str, b: str) -> None:
    """Raise :class:`ParameterError` when exactly one of the fields ``a`` and ``b`` is given."""
    if (getattr(params, a) is None) != (getattr(params, b) is None):
        raise ParameterError(f"give both {a} and {b}, or neither", a if getattr(params, a) is None else b)


def store_name(store, given: str | None = None) -> str:
    """How a message names ``store``: its source's name, else what the user gave, else "this store"."""
    prov = getattr(store, "provenance", None) or {}
    return str(prov.get("source") or given or "this store")


@command("mweat", MweatParams, example="--lang fr --json", quick=True, result="geobias.metrics.mweat.MweatResult")
def mweat(p: MweatParams, *, progress: ProgressArg = None):
    """MWEAT: | |Σ s(masculine forms)| − |Σ s(feminine forms)| | with a one-sided permutation p-value.

    Returns a :class:`geobias.metrics.MweatResult`.
    """
    from geobias.metrics import mweat as mweat_metric
    from geobias.query import WordQuery

    occupations = p.occupations()
    male, female = p.attribute_sets()
    n_items = 2 * len(occupations)
    # the budget is execute's (check_budget on `work()`); here only the exact-test limit
    draws = permutation_draws(n_items, len(occupations), p.permutations, p.permutation_method, paired=p.paired)
    query = WordQuery.two_form(occupations, male, female, lost_vocabulary_threshold=p.lost_vocabulary_threshold)
    store = p.store(progress, query.words)
    with permutation_bar(progress, draws, n_items, len(occupations), p.paired) as advance:
        return p.with_bootstrap_result(mweat_metric, store, query, permutations=p.permutations, seed=p.seed,
                                       similarity=p.similarity, paired=p.paired, oov=p.oov,
                                       permutation_method=p.permutation_method, progress=advance)


class WeatQuery(WordQueryParams):
    """WEAT's and SEAT's query: a built-in test (``DEFAULT_TEST`` when none is named) or your own four sets."""

    #: WEAT 6's career and family words against gendered terms, where the language has them (en, es,
    #: fr, de): their default stores hold its words, where WEAT 6 as published (``career-family``,
    #: first names) loses 13 of 16 names in the default English store, a GoogleNews subset. Other
    #: languages run ``career-family`` (:meth:`default_test`).
    DEFAULT_TEST: ClassVar[str] = "career-family-terms"
    KIND: ClassVar[str] = "WEAT"

    def default_test(self, lang: str) -> str:
        """``DEFAULT_TEST`` where ``lang`` has it, else ``career-family`` (WEAT 6, in every language)."""
        from geobias import wordlists

        return self.DEFAULT_TEST if self.DEFAULT_TEST in wordlists.weat_tests(lang) else "career-family"

    test: Annotated[str | None, TEST] = Field(None, description="Built-in test: career-family, career-family-terms, math-arts, "
                                               "science-arts, math-arts-names, science-arts-names (May et al.'s "
                                               "7b, 8b) or flowers-insects (control); default career-family-terms "
                                               "(WEAT 6's career/family words against gendered terms, which the "
                                               "default stores hold; en, es, fr, de), else career-family (WEAT 6, "
                                               "first names).")

    def sets(self) -> tuple[list[str], list[str], list[str], list[str], str]:
        """``(X, Y, A, B, test name)``."""
        return self.weat_sets()


class WeatParams(StoreParams, PermutationParams, BootstrapParams, WeatQuery):
    """Parameters of WEAT (Caliskan et al. 2017): a built-in test or your own four sets."""

    similarity: Similarity = Field("cosine", description="cosine, or dot (raw dot products, to reproduce notebooks).")
    alternative: Annotated[Alternative, Spec(label="Alternative hypothesis")] = Field(
        "greater", description="greater (Caliskan et al.), less or two-sided.")
    oov: Oov = Field("ignore", description="Out-of-vocabulary list words: ignore (skip them and list them in the result) "
                                          "or raise (stop at the first).")

    def work(self):
        """One permutation test over X ∪ Y (sizes before OOV words are dropped)."""
        X, Y, A, B, _ = self.sets()
        est = permutation_work(len(X) + len(Y), len(X), self.permutations, self.permutation_method)
        return self.with_bootstrap(est, len(X) + len(Y) + len(A) + len(B))


@command("weat", WeatParams, example="--lang en --test career-family-terms", quick=True, result="geobias.metrics.weat.WeatResult")
def weat(p: WeatParams, *, progress: ProgressArg = None):
    """WEAT: statistic, effect size (ddof=1; ddof=0 also given) and permutation p-value.

    Returns a :class:`geobias.metrics.WeatResult`.
    """
    from geobias.metrics import weat as weat_metric

    query = p.word_query()
    n_x, n_y = len(query.X), len(query.Y)
    draws = permutation_draws(n_x + n_y, n_x, p.permutations, p.permutation_method)
    store = p.store(progress, query.words)
    with permutation_bar(progress, draws, n_x + n_y, n_x) as advance:
        return p.with_bootstrap_result(weat_metric, store, query, permutations=p.permutations, seed=p.seed,
                                       similarity=p.similarity, oov=p.oov, alternative=p.alternative,
                                       permutation_method=p.permutation_method, test=query.name, progress=advance)


#: Inanimate nouns of each gender drawn on the directions plot.
N_PLOT_NOUNS = 25


class DirectionsParams(StoreParams):
    """Parameters of the gender directions (Zhou et al. 2019 §2): d_PCA, d_g, d_s."""

    lang: Lang
    seed: Seed = 0
    cv: Annotated[int, Spec(label="Cross-validation folds")] = Field(5, ge=2, le=20, description="Cross-validation folds of the LDA.")
    max_per_class: Annotated[int | None, capped("max_words", label="Nouns per gender (cap)")] = Field(
        None, ge=2, description="Cap the nouns per gender.")
    oov: Oov = Field("ignore", description="Out-of-vocabulary list words: ignore (skip them and list them in the result) "
                                          "or raise (stop at the first).")
    plot: Path | None = Field(None, description="Write a PNG of the semantic × grammatical gender plane here.")
    force: Force = Field(False, description=PLOT_FORCE_HELP)

    @classmethod
    def produces(cls, field: str, data: dict[str, Any]) -> bool:
        """The plane plot exists only where the language has a grammatical direction."""
        from geobias.languages import LANGUAGES

        lang = LANGUAGES.get(data.get("lang")) if isinstance(data.get("lang"), str) else None
        return field != "plot" or (lang is not None and lang.grammatical_gender
                                   and {"masculine", "feminine"} <= set(lang.genders))

    @model_validator(mode="after")
    def _plot(self):
        from geobias.languages import get_language

        language = get_language(self.lang)
        if self.plot is not None and not language.grammatical_gender:
            raise ParameterError(f"plot needs a grammatical direction; {language.name} has no "
                                 "grammatical gender", "plot")
        if self.plot is not None and not {"masculine", "feminine"} <= set(language.genders):
            raise ParameterError(f"plot draws masculine against feminine nouns; {language.name}'s genders are "
                                 f"{' and '.join(language.genders)}", "plot")
        return self


@command("directions", DirectionsParams, example="--lang fr --plot fr.png", quick=True, result="geobias.directions.GenderDirections",
         outputs=(Output("plot", "plot", "gender-plane.png", title="the semantic × grammatical gender plane"),))
def directions(p: DirectionsParams, *, progress: ProgressArg = None):
    """d_PCA (PCA on centred definitional pairs), d_g (LDA on gendered nouns) and d_s.

    Returns a :class:`geobias.directions.GenderDirections`; with ``plot``, also writes the
    semantic × grammatical plane of the occupations and inanimate nouns.
    """
    from geobias import wordlists
    from geobias.directions import gender_directions
    from geobias.languages import get_language

    language = get_language(p.lang)
    check_plot(p.plot, p.force)  # fail before the fit, not after it
    wanted = None
    if p.subwords:
        wanted = [w for pair in wordlists.definitional_pairs(language.code) for w in pair]
        if language.grammatical_gender:
            wanted += [w for nouns in wordlists.gendered_nouns(language.code) for w in nouns]
    store = p.store(progress, wanted)
    stage = reporter(progress).stage
    with stage("fitting d_PCA, d_g (LDA, cross-validated) and d_s"):
        result = gender_directions(store, language.code, cv=p.cv, random_state=p.seed,
                                   max_per_class=p.max_per_class, oov=p.oov)
    if p.plot is not None:
        with stage("plotting"):
            _plot_plane(p, store, result, language)
    return result


def _plot_plane(p: DirectionsParams, store, result, language) -> Path:
    import numpy as np

    from geobias import wordlists
    from geobias.report.plots import plot_gender_plane, save_figure

    words, gender, kind = [], [], []
    for occ in wordlists.occupations(language.code):
        for w, g in ((occ.masculine, "masculine"), (occ.feminine, "feminine")):
            if w in store and w not in words:
                words.append(w)
                gender.append(g)
                kind.append("occupation")
    masc, fem = wordlists.gendered_nouns(language.code)
    for nouns, g in ((masc, "masculine"), (fem, "feminine")):
        chosen = [w for w in nouns if w in store and w not in words][:N_PLOT_NOUNS]
        words += chosen
        gender += [g] * len(chosen)
        kind += ["noun"] * len(chosen)
    unit = store.lookup(words, unit=True).vectors.astype(np.float64)
    return save_figure(plot_gender_plane(
        words, unit @ result.d_s.astype(np.float64), unit @ result.d_g.astype(np.float64), gender, kind,
        title=f"{language.name}: semantic × grammatical gender ({store.provenance.get('source', 'vectors')})",
    ), p.plot, overwrite=p.force)


class NeighborsParams(StoreParams):
    """Parameters of the nearest-neighbour query."""

    word: Annotated[str, ARGUMENT] = Field(min_length=1, description="The query word.")
    k: Annotated[Count, capped("max_k", label="Neighbours (k)", short="-k")] = Field(10, le=10_000, description="Number of neighbours.")
    approx: Approx = Field("exact", description=(
        "exact (brute force) or ivf (an approximate faiss IVF index for multi-million-word stores, built on first "
        "use and saved with an installed store)."))


@command("neighbors", NeighborsParams, example="femme --lang fr -k 5", quick=True, result="geobias.store.neighbors.NeighborsResult")
def neighbors(p: NeighborsParams, *, progress: ProgressArg = None):
    """Nearest neighbours of a word by cosine similarity.

    Returns a :class:`geobias.store.neighbors.NeighborsResult`.
    """
    from geobias.store.neighbors import nearest_neighbors

    store = p.store()
    return nearest_neighbors(store, p.word, p.k, approx=p.approx, lang=p.lang or store.lang, source=p.vectors)


class RipaParams(StoreParams, BootstrapParams):
    """Parameters of RIPA (Ethayarajh et al. 2019)."""

    targets: WordSet | None = Field(None, description=(
        "Words to score: a file or a comma list; default: the language's occupations (both forms)."))
    pairs: Annotated[PairRows, PAIRS] = Field(None, description=(
        "Word pairs defining the relation, first<TAB>second per line (a file) or rows [first, second]; "
        "default: the language's definitional pairs as (masculine, feminine), so RIPA > 0 leans male."))
    unit: bool = Field(False, description="Unit-normalise the target vectors (the paper uses them as they are).")
    variant: Literal["grammatical", "english"] | None = Field(None, description=(
        "grammatical (the default for a language with grammatical gender): each occupation scored through the "
        "mean of its two forms on d_s, the gender direction with grammatical gender projected out, minus the "
        "same for the language's two-form adjectives (words that only agree), so 0 is no semantic lean; english "
        "(the default for en): each word on the pairs' relation vector, as Ethayarajh et al. — on a gendered "
        "language its figures follow each form's grammatical gender (a warning says so)."))
    lost_vocabulary_threshold: LostVocabularyThreshold = LOST_VOCABULARY_THRESHOLD

    def resolved_variant(self) -> str:
        """``variant``, or its default: grammatical for a grammatical-gender language without ``pairs``."""
        if self.variant is not None:
            return self.variant
        from geobias.languages import get_language

        gendered = self.lang is not None and get_language(self.lang).grammatical_gender
        return "grammatical" if gendered and self.pairs is None else "english"



@command("ripa", RipaParams, quick=True, result="geobias.metrics.ripa.RipaResult")
def ripa(p: RipaParams, *, progress: ProgressArg = None):
    """RIPA: the inner product of each target word with the relation vector of gendered word pairs.

    Returns a :class:`geobias.metrics.ripa.RipaResult`.
    """
    from geobias import wordlists
    from geobias.languages import get_language
    from geobias.metrics.ripa import ripa as ripa_metric
    from geobias.query import WordQuery

    language = get_language(p.lang) if p.lang is not None else None
    gendered = language is not None and language.grammatical_gender
    if p.resolved_variant() == "grammatical":
        return _ripa_grammatical(p, progress)
    if p.pairs is not None:
        pairs = [(x, y) for x, y in p.pairs]
    else:
        pairs = [(m, f) for f, m in wordlists.definitional_pairs(need_lang(p.lang, "definitional pairs"))]
    if p.targets is not None:
        targets = list(p.targets)
    else:
        occupations = wordlists.occupations(need_lang(p.lang, "occupation list"))
        targets = list(dict.fromkeys(w for o in occupations for w in (o.masculine, o.feminine)))
    query = WordQuery.with_pairs(targets, pairs, name="RIPA", lost_vocabulary_threshold=p.lost_vocabulary_threshold)
    store = p.store(progress, query.words)
    result = p.with_bootstrap_result(ripa_metric, store, query, unit=p.unit)
    if gendered:
        warning = (f"the english variant on {language.name}, a language with grammatical gender: each form is scored "
                   "on its own, and the pairs' relation vector carries grammatical agreement, so masculine forms lean "
                   "male and feminine forms female by grammar; variant grammatical scores each word through both "
                   "its forms on d_s")
        reporter(progress).note(f"warning: {warning}")
        result = dataclasses.replace(result, warning=warning)
    return result


def _ripa_grammatical(p: RipaParams, progress: ProgressArg):
    """The gender-aware RIPA (:func:`geobias.metrics.ripa.ripa_grammatical`) of ``p``: d_s fitted on
    the store, the occupations' two forms (or the given targets, each its own two forms)."""
    from geobias import wordlists
    from geobias.directions import gender_directions
    from geobias.languages import get_language
    from geobias.metrics.ripa import ripa_grammatical
    from geobias.query import check_lost_vocabulary, lost_shares

    lang = need_lang(p.lang, "definitional pairs and noun lists of the grammatical variant")
    if not get_language(lang).grammatical_gender:
        raise InputError(f"the grammatical variant of RIPA needs a language with grammatical gender; "
                         f"{get_language(lang).name} has none (use variant english)")
    if p.pairs is not None:
        raise InputError("the grammatical variant's relation vector is d_s, fitted on the language's lists; give "
                         "pairs with variant english")
    if p.targets is not None:
        masculine = feminine = list(p.targets)
    else:
        occupations = wordlists.occupations(lang)
        masculine, feminine = [o.masculine for o in occupations], [o.feminine for o in occupations]
    store = p.store(progress)
    counts = lost_shares({"the targets": list(dict.fromkeys([*masculine, *feminine]))}, store)
    check_lost_vocabulary(counts, p.lost_vocabulary_threshold, test="RIPA", store=store_name(store, p.vectors))
    with reporter(progress).stage("fitting d_s"):
        dirs = gender_directions(store, lang, oov="ignore")
    try:  # the agreement reference: two-form words without semantic gender
        adjectives = wordlists.adjectives(lang)
        reference = ([a.masculine for a in adjectives], [a.feminine for a in adjectives])
    except InputError:
        reference = None
    pairs = wordlists.definitional_pairs(lang)  # the (feminine, masculine) pairs d_PCA was fitted on
    definitional = ([m for _, m in pairs], [f for f, _ in pairs])
    return p.with_bootstrap_result(ripa_grammatical, store, masculine, feminine, dirs.d_s, unit=p.unit,
                                   reference=reference, definitional=definitional, d_g=dirs.d_g)
