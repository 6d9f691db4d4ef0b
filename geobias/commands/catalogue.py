"""The metric catalogue on one static store: ``rnd``, ``rnsb`` (WEFE's metrics) and
``recoverability`` (Gonen & Goldberg's recovery tests); ``ect`` and ``mac``, which need nothing
beyond the query, are made from their metrics' declarations (:mod:`geobias.commands.declared`).

Every command takes the query of ``weat`` (a built-in test or your own sets, files or comma
lists) and a ``variant``:

* ``grammatical`` (the default for a language with grammatical gender when no ``test`` is given):
  ``targets_x``/``targets_y`` are the masculine and feminine forms of the same words, paired by
  position (default: the language's occupations), ``attributes_a``/``attributes_b`` the male and
  female words (default: the language's attribute words); each form is compared with its own
  gender's attribute words, as MWEAT does (MAC, which has no gendered direction, takes every word
  with both forms instead; see :func:`geobias.metrics.mac.mac`).
* ``english``: the metric as its paper and WEFE define it, on a built-in WEAT test, your own sets
  (``targets_y`` may be left out: one target set), or by default the language's occupations
  against its male/female words, every form scored on its own.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import AliasChoices, BeforeValidator, Field, model_validator

from geobias._progress import ProgressArg
from geobias.choices import Alternative, MitigationMethod
from geobias.commands._base import command
from geobias.commands._bootstrap import BootstrapParams
from geobias.commands._fields import Lang, Seed
from geobias.commands._kinds import METHOD, Spec
from geobias.commands._permutations import permutation_bar, permutation_draws
from geobias.commands._query import (
    TEST,
    AttributesA,
    AttributesB,
    TargetsX,
    TargetsY,
    WordQueryParams,
    need_lang,
)
from geobias.commands.static import Oov, PermutationParams, StoreParams
from geobias.errors import InputError, ParameterError

Variant = Literal["grammatical", "english"]


class QueryParams(StoreParams, BootstrapParams, WordQueryParams):
    """The query of a catalogue metric: WEAT's four sets, a built-in test, or the language's defaults."""

    KIND: ClassVar[str] = "query"
    FULL: ClassVar[bool] = False
    DEFAULT_TEST: ClassVar[str | None] = None

    test: Annotated[str | None, TEST] = Field(None, description="Built-in WEAT test (english variant): career-family, "
                                               "career-family-terms, math-arts, science-arts, math-arts-names, science-arts-names "
                                               "or flowers-insects.")
    targets_x: TargetsX = Field(None, validation_alias=AliasChoices("targets_x", "X"), description=(
        "Target set X (grammatical variant: the masculine forms); default: the language's occupations."))
    targets_y: TargetsY = Field(None, validation_alias=AliasChoices("targets_y", "Y"), description=(
        "Target set Y, optional in the english variant (grammatical variant: the feminine forms, paired with "
        "targets_x by position)."))
    attributes_a: AttributesA = Field(None, validation_alias=AliasChoices("attributes_a", "A"), description=(
        "Attribute set A (e.g. male words); default: the language's male attribute words."))
    attributes_b: AttributesB = Field(None, validation_alias=AliasChoices("attributes_b", "B"), description=(
        "Attribute set B (e.g. female words); default: the language's female attribute words."))
    variant: Variant | None = Field(None, description=(
        "grammatical (each form against its own gender's attribute words; the default for es/fr/de without "
        "`test`) or english (the paper's metric, every word on its own)."))
    oov: Oov = "ignore"

    @model_validator(mode="after")
    def _variant(self):
        if self.variant == "grammatical":
            if self.test is not None:
                raise ParameterError("the built-in WEAT tests hold one-form words; the grammatical variant scores "
                                     "two-form words (give targets_x/targets_y, or leave both out)", "test")
            if (self.targets_x is None) != (self.targets_y is None):
                raise ParameterError("the grammatical variant needs targets_x (masculine forms) and targets_y "
                                     "(feminine forms)", "targets_y")
            if self.targets_x is not None and len(self.targets_x) != len(self.targets_y):
                raise InputError(f"`targets_x` has {len(self.targets_x)} words and `targets_y` "
                                 f"{len(self.targets_y)}; they pair masculine and feminine forms by position")
        return self

    def work(self):
        """The bootstrap's resamples (ect, mac, rnsb have no permutation test)."""
        X, Y, A, B, _, _ = self.query()
        return self.with_bootstrap(None, len(X) + len(Y or ()) + len(A) + len(B))

    def resolved_variant(self) -> str:
        """``variant``, or its default: grammatical for a grammatical-gender language without ``test``."""
        if self.variant is not None:
            return self.variant
        if self.test is None and self.lang is not None:
            from geobias.languages import get_language

            if get_language(self.lang).grammatical_gender:
                return "grammatical"
        return "english"

    def query(self) -> tuple[list[str], list[str] | None, list[str], list[str], str, str]:
        """``(X, Y or None, A, B, variant, query name)``."""
        from geobias import wordlists
        from geobias.languages import get_language

        variant = self.resolved_variant()
        if self.test is not None:
            sets = wordlists.weat_test(need_lang(self.lang, "WEAT tests"), self.test)
            return sets.X, sets.Y, sets.A, sets.B, variant, sets.name
        if self.attributes_a is not None:
            a, b = list(self.attributes_a), list(self.attributes_b)
        else:
            a, b = wordlists.attribute_words(need_lang(self.lang, "attribute words"))
        if self.targets_x is not None:
            y = None if self.targets_y is None else list(self.targets_y)
            return list(self.targets_x), y, a, b, variant, "custom"
        lang = need_lang(self.lang, "occupation list")
        language = get_language(lang)
        if not language.grammatical_gender and language.code != "en":  # ja, ko, th, tr, zh: one form each
            if variant == "grammatical":
                raise InputError(f"the grammatical variant needs two-form words; {language.name} has no "
                                 "grammatical gender (give targets_x/targets_y, or use variant english)")
            return [w for w, _ in wordlists.single_occupations(lang)], None, a, b, variant, "occupations"
        occupations = wordlists.occupations(lang)
        if get_language(lang).grammatical_gender:
            return ([o.masculine for o in occupations], [o.feminine for o in occupations], a, b, variant,
                    "occupations (masculine, feminine forms)")
        if variant == "grammatical":
            raise InputError(f"the grammatical variant needs two-form words; {get_language(lang).name} has no "
                             "grammatical gender (give targets_x/targets_y, or use variant english)")
        words = list(dict.fromkeys(w for o in occupations for w in (o.masculine, o.feminine)))
        return words, None, a, b, variant, "occupations"

    def word_query(self):
        """The :class:`geobias.query.WordQuery` (its ``name`` the query's) and the variant that reads it."""
        from geobias.query import WordQuery

        X, Y, A, B, variant, name = self.query()
        return WordQuery(X, Y, A, B, name=name, lost_vocabulary_threshold=self.lost_vocabulary_threshold), variant


class RndParams(QueryParams, PermutationParams):
    """Parameters of RND (Garg et al. 2018)."""

    alternative: Annotated[Alternative, Spec(label="Alternative hypothesis")] = Field("two-sided", description=(
        "Alternative of the permutation test of Σ_X r − Σ_Y r (english) or of the sign-flip test (grammatical)."))

    def work(self):
        """The permutation test's partitions (sizes before OOV words are dropped); none with one target set."""
        from geobias.commands._permutations import permutation_work

        X, Y, A, B, variant, _ = self.query()
        words = len(X) + len(Y or ()) + len(A) + len(B)
        if Y is None:
            return self.with_bootstrap(None, words)
        paired = variant == "grammatical"
        return self.with_bootstrap(permutation_work(2 * len(X) if paired else len(X) + len(Y), len(X),
                                                    self.permutations, self.permutation_method, paired=paired), words)


@command("rnd", RndParams, quick=True, result="geobias.metrics.rnd.RndResult")
def rnd(p: RndParams, *, progress: ProgressArg = None):
    """RND: relative norm distance Σ ‖w − mean A‖ − ‖w − mean B‖ (Garg et al. 2018), with a permutation p-value.

    Returns a :class:`geobias.metrics.rnd.RndResult`. The p-value (ours; the paper has none):
    english variant with two target sets, the shared permutation test of Σ_X r − Σ_Y r; grammatical
    variant and one target set, the bootstrap's test of RND = 0 (it resamples A and B too), with the
    grammatical variant's sign-flip test of the per-word sums r(m) + r(f), given these A and B, beside it.
    """
    from geobias.metrics.rnd import rnd as rnd_metric

    query, variant = p.word_query()
    X, Y = query.X, query.Y
    draws = None
    if Y is not None:
        paired = variant == "grammatical"
        n_items = 2 * len(X) if paired else len(X) + len(Y)
        draws = permutation_draws(n_items, len(X), p.permutations, p.permutation_method, paired=paired)
    store = p.store(progress, query.words)
    if draws is None:
        return p.with_bootstrap_result(rnd_metric, store, query, variant=variant, oov=p.oov)
    n_items = 2 * len(X) if variant == "grammatical" else len(X) + len(Y)
    with permutation_bar(progress, draws, n_items, len(X), variant == "grammatical") as advance:
        return p.with_bootstrap_result(rnd_metric, store, query, variant=variant, oov=p.oov,
                                       permutations=p.permutations, seed=p.seed, alternative=p.alternative,
                                       permutation_method=p.permutation_method, progress=advance)


class RnsbParams(QueryParams):
    """Parameters of RNSB (Sweeney & Najafian 2019)."""

    #: RNSB retrains its classifier on every resample: 1,000 take seconds (docs/bootstrap.md).
    DEFAULT_BOOTSTRAP: ClassVar[int] = 200

    C: float = Field(1.0, ge=1e-6, le=1e6, description=(  # geobias.metrics.rnsb.C_RANGE (not imported: start-up)
        "Inverse L2 regularisation of the logistic regression (scikit-learn's C; liblinear, as WEFE); "
        "1e-6 to 1e6 (liblinear never returns below about 1e-200)."))
    seed: Seed = 0
    null_directions: int = Field(1000, ge=0, le=1_000_000, description=(
        "Directions for RNSB's null band and its one-sided p: the fitted classifier turned to each, its strength "
        "kept; each the contrast of two random word sets as large as A and B from the store's vocabulary (KL is "
        "above 0 on any real words, so it is read against this band); 0 for none."))

    def work(self):
        """The bootstrap's resamples and the null's directions (each scores every target once)."""
        from geobias.commands._base import Estimate
        from geobias.commands._permutations import MAX_PERMUTATIONS

        X, Y, A, B, _, _ = self.query()
        n, targets = self.null_directions, len(X) + len(Y or ())
        null = None if not n else Estimate(n * targets, "permutations",
                                           f"{n:,} null directions × {targets} targets", None, MAX_PERMUTATIONS)
        return self.with_bootstrap(null, targets + len(A) + len(B))


@command("rnsb", RnsbParams, quick=True, result="geobias.metrics.rnsb.RnsbResult")
def rnsb(p: RnsbParams, *, progress: ProgressArg = None):
    """RNSB: KL divergence from uniform of the targets' normalised P(B | w) under a logistic regression on A vs B (Sweeney & Najafian 2019).

    Returns a :class:`geobias.metrics.rnsb.RnsbResult`, with its null band (the classifier turned to the contrasts of random word sets) and its p.
    """
    from geobias.metrics.rnsb import rnsb as rnsb_metric

    query, variant = p.word_query()
    store = p.store(progress, query.words)
    return p.with_bootstrap_result(rnsb_metric, store, query, variant=variant, oov=p.oov, C=p.C, seed=p.seed,
                                   null_directions=p.null_directions)


def _comma_list(value: Any) -> Any:
    """``"leace,inlp"`` → ``["leace", "inlp"]`` (a list passes unchanged; pydantic checks the choices)."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()] or None
    return value


class RecoverabilityParams(StoreParams):
    """Parameters of the recovery tests (Gonen & Goldberg 2019)."""

    lang: Lang
    methods: Annotated[list[MitigationMethod] | None, BeforeValidator(_comma_list), METHOD] = Field(None, description=(
        "Mitigation methods to test after (comma list); default: hard-debias for en, leace for es/fr/de. Methods "
        "that need English vectors (shift-en, de-align, hybrid-*) are not offered here."))
    n_biased: int = Field(500, ge=2, le=100_000, description="Most male- and most female-biased words clustered "
                                                            "(the paper's 500 + 500).")
    n_classify: int = Field(2500, ge=2, le=100_000, description="Most biased words per side for the SVM (the "
                                                               "paper's 2,500 + 2,500).")
    n_train: int = Field(1000, ge=2, le=200_000, description="SVM training words drawn from them; the rest test it.")
    n_neighbors: int = Field(100, ge=1, le=1000, description="Nearest neighbours for the correlation (the paper's "
                                                             "k = 100).")
    protocol: Literal["paper", "geobias"] | None = Field(None, description=(
        "'paper' (English only, the default there): Gonen & Goldberg's bias b(w) = w·he − w·she, their "
        "vocabulary (the 50,000 most frequent lower-case words without digits or punctuation, less Bolukbasi "
        "et al.'s gender-specific, definitional and equalise words), Bolukbasi et al.'s professions, k-means "
        "random_state 1, SVM gamma 'auto' on 500 + 500 words drawn as the authors' notebook draws them "
        "(Python's random.seed(10), then a shuffle of each side; --seed does not change it), hard debias "
        "with Bolukbasi et al.'s lists. "
        "'geobias' (the default for es/fr/de): bias on d_PCA (en) or d_s, our lists and occupations, SVM "
        "gamma 'scale' on a pooled draw."))
    seed: Seed = 0


@command("recoverability", RecoverabilityParams, quick=False, job=True,
         result="geobias.metrics.recoverability.RecoverabilityResult")
def recoverability(p: RecoverabilityParams, *, progress: ProgressArg = None):
    """Recoverability: can the original gender of the most biased words be recovered after debiasing? (Gonen & Goldberg 2019).

    Returns a :class:`geobias.metrics.recoverability.RecoverabilityResult`: k-means and SVM
    accuracies and the neighbour correlation in the original space and after each method. On
    English by the paper's protocol (bias w·he − w·she, their vocabulary, lists and classifier
    settings); otherwise (or with ``protocol="geobias"``) the projection on d_PCA (English) or
    d_s (es/fr/de), gender-definitional words and the grammatically gendered inanimate nouns
    left out (the latter reported separately).
    """
    from geobias._progress import reporter
    from geobias.evaluation.recovery import debias_for_recovery, recoverability_for, recovery_setup
    from geobias.languages import get_language
    from geobias.mitigation import get_method

    language = get_language(p.lang)
    if p.protocol == "paper" and language.code != "en":
        raise InputError(f"the paper's recovery protocol is English only (he − she, Bolukbasi et al.'s lists); "
                         f"for {language.code} use --protocol geobias (bias on d_s)")
    methods = list(p.methods or (["leace"] if language.grammatical_gender else ["hard-debias"]))
    for m in methods:
        if get_method(m).needs_english == "required":
            raise InputError(f"{m} needs English vectors and a dictionary; recoverability takes one store "
                             "(choose hard-debias, shift-ori, leace, inlp or their keep-grammar variants)")
    store = p.store(progress)
    stage = reporter(progress).stage
    with stage("fitting the gender directions"):
        setup = recovery_setup(store, language.code, seed=p.seed, protocol=p.protocol)
    debiased = {}
    for m in methods:
        with stage(f"debiasing with {m}"):
            debiased[m] = debias_for_recovery(m, store, language.code, setup.protocol)
    with stage("clustering, classifying, ranking neighbours"):
        return recoverability_for(store, debiased, language.code, setup=setup, n_biased=p.n_biased,
                                  n_classify=p.n_classify, n_train=p.n_train, k=p.n_neighbors, seed=p.seed)
