"""RNSB, the relative negative sentiment bias of Sweeney & Najafian (2019)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from geobias._numeric import legacy_seed
from geobias.errors import InputError
from geobias.metrics._query import MetricVariant, PairScore, pair_scores, query_rows
from geobias.metrics._result import VariantResult
from geobias.metrics.bootstrap import bootstrap_query, non_negative, rnsb_resampling
from geobias.metrics.declaration import Metric, declare
from geobias.query import WordQuery
from geobias.results import Result
from geobias.stats.bootstrap import bootstrap_lines
from geobias.store import VectorStore

__all__ = ["RnsbResult", "RnsbWord", "rnsb"]


@dataclass(frozen=True)
class RnsbWord(Result):
    """One scored item: its negative-class probability ``P(B | w)`` and its share of the
    normalised distribution (grammatical variant: ``word`` is ``"masculine/feminine"`` and the
    probability the mean of the two forms')."""

    word: str
    probability: float
    share: float


@dataclass(frozen=True)
class RnsbResult(VariantResult):
    """Relative negative sentiment bias.

    Attributes
    ----------
    rnsb : float
        ``KL(P ‖ U)`` in nats: P the targets' negative-class probabilities normalised to sum to 1,
        U uniform over the same targets. Never negative, and above 0 on any real words even
        without bias (targets differ on every direction), so it is read against ``null_band``,
        never against 0.
    p_value : float or None
        One-sided Monte Carlo p of ``rnsb`` against its null (ours): the same targets scored by
        the fitted classifier turned to another direction, its weight norm and intercept kept
        (``p = (1 + #{KL_b >= KL}) / (1 + B)``). The directions are the contrasts of random word
        sets, as large as A and B, drawn from the store's vocabulary
        (:func:`vocabulary_contrasts`): the test asks whether the targets' probabilities spread
        more along the A-versus-B contrast than along the contrast of two sets of words chosen at
        random, at the classifier's strength (KL's size depends on that strength, so the null keeps
        it). Real embeddings are far from isotropic, and their word contrasts lie along their
        directions of most variance: directions uniform on the sphere, the earlier null, gave p <
        0.05 in 24 of 100 English queries whose A and B were random frequent words (word2vec
        GoogleNews, 68 occupation words as targets); the vocabulary's contrasts in 5 of 100. A store
        with fewer than :data:`MIN_VOCABULARY` other words falls back to directions uniform on the
        sphere (``null_kind`` says which). ``None`` when ``null_directions`` is 0.
    p_value_ci : (float, float) or None
        Clopper–Pearson 95 % interval of ``p_value``'s Monte Carlo error.
    null_band : (float, float) or None
        The 2.5 % and 97.5 % quantiles of KL on the random directions: what RNSB shows by chance
        on these targets. A figure inside this band shows no bias.
    null_mean : float or None
        Mean KL on the random directions.
    null_directions : int
        Random directions drawn (seed ``seed``).
    null_kind : {"vocabulary", "isotropic"} or None
        Where they came from: contrasts of random word sets of the store (:func:`vocabulary_contrasts`),
        or uniform on the sphere (a store with fewer than :data:`MIN_VOCABULARY` other words).
    variant : str
    classifier : str
        The classifier exactly as fitted (scikit-learn ``LogisticRegression`` and its options).
    train_accuracy : float
        Accuracy of the classifier on the attribute words it was trained on.
    n_targets, n_a, n_b : int
    per_word : list of RnsbWord
    per_pair : list of PairScore
        Grammatical variant: ``P(B | m_i)``, ``P(B | f_i)`` and their mean.
    missing, dropped_pairs, bootstrap, bootstrap_note
        As every association result (:class:`geobias.metrics._result.VariantResult`).
    """

    rnsb: float
    variant: str
    classifier: str
    train_accuracy: float
    n_targets: int
    n_a: int
    n_b: int
    per_word: list[RnsbWord]
    p_value: float | None = None
    p_value_ci: tuple[float, float] | None = None
    null_band: tuple[float, float] | None = None
    null_mean: float | None = None
    null_directions: int = 0
    null_kind: str | None = None

    def __rich__(self):
        """The CLI's table: KL and the targets with the largest negative-class probability."""
        from rich.console import Group
        from rich.table import Table

        t = Table(title=f"RNSB (Sweeney & Najafian 2019), {self.variant} variant: P(B | w) of a logistic "
                        "regression trained on A (positive) vs B (negative)", title_justify="left")
        for c in ("word", "P(B | w)", "share"):
            t.add_column(c, justify="left" if c == "word" else "right")
        for e in sorted(self.per_word, key=lambda e: -e.probability)[:10]:
            t.add_row(e.word, f"{e.probability:.4f}", f"{e.share:.4f}")
        if self.p_value is None:
            null = "no null band (0 random directions asked for)"
        else:
            lo, hi = self.null_band
            turned = NULL_KINDS.get(self.null_kind or "isotropic", self.null_kind)
            null = (f"null band (the classifier turned to {self.null_directions:,} {turned}, its strength "
                    f"kept) [{lo:.6f}, {hi:.6f}], mean {self.null_mean:.6f}; one-sided p = {self.p_value:.4g}")
        return Group(t, f"RNSB = KL(P ‖ uniform) = {self.rnsb:.6f} nats over {self.n_targets} targets; classifier "
                        f"{self.classifier}, training accuracy {self.train_accuracy:.3f}; missing "
                        f"{len(self.missing)}", null, *bootstrap_lines(self))


#: The inverse regularisation strengths accepted: scikit-learn's liblinear never returns for C below
#: about 1e-200 (it spins, uninterruptibly), and nothing between 1e-6 and 0 differs from 1e-6 in use.
C_RANGE = (1e-6, 1e6)

#: Words of the store (in its order: most frequent first in word2vec and fastText files) that the
#: null's random word sets are drawn from.
VOCABULARY = 50_000

#: Fewest words besides the query's for the vocabulary's contrasts; below, directions uniform on the sphere.
MIN_VOCABULARY = 200

#: How the null line names its directions, by ``null_kind``.
NULL_KINDS = {"vocabulary": "contrasts of random word sets from the store's vocabulary",
              "isotropic": "random directions uniform on the sphere (the store has too few other words)"}


def vocabulary_contrasts(store: VectorStore, exclude: set[str], n_a: int, n_b: int, n: int,
                         rng: np.random.Generator) -> np.ndarray | None:
    """RNSB's null directions: ``mean(A') − mean(B')`` of ``n`` pairs of random word sets.

    Each draw takes ``n_a + n_b`` distinct words at random from the store's first :data:`VOCABULARY`
    words, less ``exclude`` (the query's own words), and contrasts the unit-vector means of the
    first ``n_a`` and the other ``n_b``: a direction along which two sets of words chosen at random
    differ, with the anisotropy of the embedding itself.

    Parameters
    ----------
    store : VectorStore
    exclude : set of str
        Words never drawn (targets, A and B).
    n_a, n_b : int
        Sizes of the two random sets (those of A and B).
    n : int
        Draws.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n, dim), float64, or None
        One unnormalised contrast per row; ``None`` when fewer than :data:`MIN_VOCABULARY` words
        are left to draw from.

    Examples
    --------
    >>> from geobias.store import VectorStore
    >>> s = VectorStore([f"w{i}" for i in range(300)], np.random.default_rng(0).normal(size=(300, 4)))
    >>> vocabulary_contrasts(s, {"w0"}, 3, 2, 5, np.random.default_rng(1)).shape
    (5, 4)
    >>> vocabulary_contrasts(s.head(100), set(), 3, 2, 5, np.random.default_rng(1)) is None
    True
    """
    top = min(len(store), VOCABULARY)
    keep = np.ones(top, dtype=bool)
    index = store.index
    for w in exclude:
        i = index.get(w)
        if i is not None and i < top:
            keep[i] = False
    pool = np.flatnonzero(keep)
    if len(pool) < max(MIN_VOCABULARY, n_a + n_b):
        return None
    picks = np.stack([pool[rng.choice(len(pool), n_a + n_b, replace=False)] for _ in range(n)])
    unit = store.unit_rows(picks.ravel()).astype(np.float64).reshape(n, n_a + n_b, -1)
    return unit[:, :n_a].mean(axis=1) - unit[:, n_a:].mean(axis=1)


def rnsb(
    store: VectorStore,
    query: WordQuery,
    *,
    variant: MetricVariant = "english",
    oov: Literal["raise", "ignore"] = "raise",
    C: float = 1.0,
    seed: int | None = 0,
    bootstrap: int = 0,
    bootstrap_seed: int | None = 0,
    null_directions: int = 1000,
) -> RnsbResult:
    """Relative negative sentiment bias of the target words.

    A logistic regression is trained on the unit vectors of A (label +1, positive) and B
    (label −1, negative); each target ``w`` gets ``p(w) = P(B | w)``; with
    ``P(w) = p(w) / Σ_v p(v)`` and ``U(w) = 1/n``, ``RNSB = KL(P ‖ U) = Σ_w P(w) log(n P(w))``.

    Parameters
    ----------
    store : VectorStore
    query : WordQuery
        X and Y (or none) the target words (grammatical variant: masculine and feminine forms paired by
        position); A and B (below); its lost-vocabulary rule applies with ``oov="ignore"``.
    query.A, query.B
        Positive and negative training words (in Sweeney & Najafian, a sentiment lexicon; for
        gender, male and female words: then "negative" reads "female").
    variant : {"english", "grammatical"}, default "english"
        Grammatical (ours): each two-form word is scored ``(P(B | m_i) + P(B | f_i)) / 2``: the
        feminine form's lean to B against the masculine form's lean to A, ``P(B | f_i) −
        P(A | m_i)``, shifted by 1/2; agreement, which pushes the two forms apart, cancels.
    oov : {"raise", "ignore"}, default "raise"
    C : float, default 1.0
        Inverse L2 regularisation strength of the logistic regression.
    seed : int or None, default 0
        ``random_state`` of the classifier (liblinear's primal solver does not draw; kept so the
        run is fully specified).
    bootstrap : int, default 0
        Resamples of the bootstrap over the words (:func:`geobias.metrics.bootstrap.bootstrap_query`;
        the grammatical variant resamples the two-form words as pairs); 0 computes none.
    bootstrap_seed : int or None, default 0
    null_directions : int, default 1000
        Random directions for ``null_band`` and ``p_value`` (one matrix product for all); 0
        computes none.

    Returns
    -------
    RnsbResult

    Notes
    -----
    The classifier is scikit-learn's ``LogisticRegression(solver="liblinear", max_iter=10000,
    C=C, random_state=seed)``, WEFE 1.0.1's default estimator, trained on **all** attribute
    words. WEFE's default also holds out a random 20% of them (``holdout=True``), which makes
    its number depend on the split; its ``holdout=False`` is what this function computes.

    Raises
    ------
    InputError
        ``C`` outside :data:`C_RANGE` (1e-6 to 1e6), ``null_directions`` negative or above 1,000,000; see also
        :func:`geobias.metrics._query.query_rows`.

    References
    ----------
    Sweeney & Najafian (2019), "A Transparent Framework for Evaluating Unintended Demographic
    Bias in Word Embeddings", ACL, §3 (RNSB: KL divergence of the normalised negative-sentiment
    probabilities of the identity terms from the uniform distribution).

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["good", "bad", "x", "y"], np.array([[1.0, 0], [-1, 0], [0.6, 0.8], [0.6, 0.8]]))
    >>> rnsb(s, WordQuery(["x", "y"], None, ["good"], ["bad"])).rnsb  # two identical targets: P is uniform
    0.0
    """
    from scipy.stats import entropy
    from sklearn.linear_model import LogisticRegression

    if not C_RANGE[0] <= C <= C_RANGE[1]:
        raise InputError(f"C must be within {C_RANGE[0]:g} to {C_RANGE[1]:g}; got {C}")
    if isinstance(null_directions, bool) or not 0 <= null_directions <= 1_000_000:
        raise InputError(f"null_directions must be 0..1,000,000; got {null_directions!r}")
    rows = query_rows(store, query, variant=variant, oov=oov)
    train = np.concatenate([rows.a, rows.b])
    labels = np.concatenate([np.ones(len(rows.a)), -np.ones(len(rows.b))])

    clf = LogisticRegression(solver="liblinear", max_iter=10_000, C=C, random_state=legacy_seed(seed)).fit(train, labels)
    sign = 1.0 if clf.classes_[1] == 1 else -1.0  # coef_ points to classes_[1]
    coef, intercept = sign * clf.coef_[0].astype(np.float64), sign * float(clf.intercept_[0])

    def probs_of(weights: np.ndarray):
        """P(B | target) under weights of shape (dim,) or (dim, k) (k classifiers at once) and the intercept."""
        def p_neg(v: np.ndarray) -> np.ndarray:
            return 1.0 / (1.0 + np.exp(v @ weights + intercept))
        if variant == "grammatical":
            p_m, p_f = p_neg(rows.x), p_neg(rows.y)
            return (p_m + p_f) / 2, (p_m, p_f)
        return p_neg(rows.targets), None

    def kl_of(probs: np.ndarray) -> np.ndarray:
        """KL(P ‖ uniform) of each column of ``probs`` normalised over the targets (axis 0)."""
        return np.maximum(entropy(probs, np.ones_like(probs), axis=0), 0.0)

    probs, forms = probs_of(coef)
    per_pair: list[PairScore] = []
    if forms is not None:
        per_pair = pair_scores(rows, forms[0], forms[1], probs)
        labels_out = [f"{m}/{f}" for m, f in zip(rows.x_words, rows.y_words, strict=True)]
    else:
        labels_out = rows.target_words
    dist = probs / probs.sum()
    kl = float(kl_of(probs))
    null = {}
    if null_directions:
        from geobias.stats.permutation import _clopper_pearson as clopper_pearson

        # the fitted classifier turned to other directions, its weight norm and intercept kept: the
        # contrasts of random word sets from the store's vocabulary, or, in a store too small for
        # them, directions uniform on the sphere (one matrix product for every draw)
        rng = np.random.default_rng(seed)
        query_words = {*rows.a_words, *rows.b_words, *(rows.x_words or ()), *(rows.y_words or ())}
        turns = vocabulary_contrasts(store, query_words, len(rows.a), len(rows.b), null_directions, rng)
        null_kind = "vocabulary" if turns is not None else "isotropic"
        if turns is None:
            turns = rng.standard_normal((null_directions, train.shape[1]))
        turns *= np.linalg.norm(coef) / np.linalg.norm(turns, axis=1, keepdims=True)
        draws = kl_of(probs_of(turns.T)[0])
        hits = int(np.sum(draws >= kl - 1e-12 * max(1.0, kl)))
        p_value = (1 + hits) / (1 + null_directions)
        null = dict(p_value=p_value, p_value_ci=tuple(clopper_pearson(hits + 1, null_directions + 1)),
                    null_band=tuple(float(v) for v in np.quantile(draws, [0.025, 0.975])),
                    null_mean=float(draws.mean()), null_directions=null_directions, null_kind=null_kind)
    boot = None if not bootstrap else bootstrap_query(rows, "rnsb", variant=variant, C=C, classifier_seed=seed,
                                                     n_resamples=bootstrap, seed=bootstrap_seed)
    return RnsbResult(
        rnsb=kl, variant=variant,
        classifier=f"LogisticRegression(solver='liblinear', max_iter=10000, C={C}, random_state={seed})",
        train_accuracy=float(clf.score(train, labels)), n_targets=len(labels_out), n_a=len(rows.a_words),
        n_b=len(rows.b_words), missing=rows.missing, dropped_pairs=rows.dropped_pairs,
        per_word=[RnsbWord(w, float(p), float(d)) for w, p, d in zip(labels_out, probs, dist, strict=True)],
        per_pair=per_pair,
        bootstrap=boot,
        **null,
    )


def _resampling(rows, *, variant: str = "english", C: float = 1.0, classifier_seed: int | None = 0,
                quantity: str | None = None):
    """The targets (as pairs in the grammatical variant), A and B, the classifier retrained on each
    resample (:func:`geobias.metrics.bootstrap.rnsb_resampling`)."""
    return rnsb_resampling(rows.x, rows.y, rows.a, rows.b, variant=variant, C=C, seed=classifier_seed,
                           quantity=quantity)


METRIC = declare(Metric(
    "rnsb", rnsb, RnsbResult, "sets",
    summary="RNSB: KL divergence from uniform of the targets' normalised P(B | w) under a logistic regression on "
            "A vs B (Sweeney & Najafian 2019).",
    sets=("X", "Y", "A", "B"), paired="X with Y in the grammatical variant", quantities=("rnsb",),
    resampling=_resampling,
    notes={"rnsb": non_negative("read it against RNSB's null_band (the classifier turned to other directions)")},
))
