"""RIPA, the relational inner product association (Ethayarajh, Duvenaud & Hirst 2019)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from geobias.errors import InputError
from geobias.metrics.bootstrap import non_negative, ripa_resampling
from geobias.metrics.coverage import notes as coverage_notes
from geobias.metrics.declaration import Metric, declare
from geobias.query import WordQuery
from geobias.results import Result
from geobias.stats.bootstrap import BootstrapResult, bootstrap_lines
from geobias.store import VectorStore

__all__ = ["RipaResult", "relation_vector", "ripa", "ripa_grammatical"]


@dataclass(frozen=True)
class RipaResult(Result):
    """RIPA of each target word with the relation of the given word pairs.

    Attributes
    ----------
    words : list of str
        Target words found in the store, in the order given.
    ripa : list of float
        β(w; b) = ⟨w, b⟩ per word, same order; > 0 leans towards the first word of each pair.
    mean : float
        Mean RIPA over ``words``.
    mean_abs : float
        Mean |RIPA| over ``words`` (the size of the association whatever its sign).
    n_pairs : int
        Word pairs whose difference vectors defined the relation vector b.
    explained_variance_ratio : float
        Share of the pair differences' variance along b (1.0 for a single pair).
    unit : bool
        Whether the target vectors were unit-normalised before the inner product.
    missing : list of str
        Target and pair words not in the store (a pair with a missing word is not used).
    bootstrap : BootstrapResult or None
        The bootstrap over the words (mean RIPA; targets and pairs resampled, b re-fitted on each
        resample of the pairs); ``None`` unless asked for.
    bootstrap_note : str or None
        Why there is no ``bootstrap`` when a command gave none: its default where a bootstrap does
        not apply (or a set too small to resample), or 0 resamples asked for; ``None`` otherwise.
    variant : {"english", "grammatical"}
        ``english``: each word scored on the pairs' relation vector (Ethayarajh et al.'s RIPA);
        ``grammatical``: each two-form word scored through the mean of its forms on d_s (see
        :func:`ripa_grammatical`).
    relation : str
        What b is: ``"pairs"`` (the pairs' relation vector) or ``"d_s"``.
    warning : str or None
        Set when the english variant ran on a language with grammatical gender (its figures
        measure agreement as much as bias), or the gender-aware one had no reference.
    forms : dict of str to float or None
        Gender-aware variant: the mean projection on b of the targets' masculine and feminine
        forms, and of the reference's (``reference_masculine``, ``reference_feminine``).
    reference_offset : float or None
        Gender-aware variant: the reference pairs' mean midpoint on b, subtracted from every score.
    n_reference : int
        Reference pairs used (0: none).
    word_intervals : list of (float, float) or None
        Gender-aware variant with a bootstrap: each word's interval over resamples of the seed
        words (definitional pairs, reference), the word itself fixed. Simultaneous over the words
        (``score ± c · se``, ``se`` each word's bootstrap standard error, c the larger of the
        ``confidence`` quantile of the largest standardised deviation over the words — the max-|t|
        band — and the Bonferroni-t value ``t_{k−1}(1 − (1 − confidence) / 2n)``, k the smallest
        seed set, n the words: each word's ``se`` is itself estimated from k seed pairs), meant to
        hold every word's true value at once. Measured on 100 synthetic stores with agreement only
        (25 words, 15 definitional pairs, 20 adjectives): every word's interval held its 0 at once
        in 96 (symmetric) and 95 (asymmetric) of 100; the max-|t| band alone in 82
        (tests/metrics/test_ripa_agreement.py).
    """

    words: list[str]
    ripa: list[float]
    mean: float
    mean_abs: float
    n_pairs: int
    explained_variance_ratio: float
    unit: bool
    missing: list[str]
    bootstrap: BootstrapResult | None = None
    bootstrap_note: str | None = None
    variant: str = "english"
    relation: str = "pairs"
    warning: str | None = None
    forms: dict[str, float] | None = None
    reference_offset: float | None = None
    n_reference: int = 0
    word_intervals: list[tuple[float, float]] | None = None

    def __rich__(self):
        """The table the CLI prints: the ten words with the largest |RIPA| and the summary."""
        from rich.console import Group
        from rich.table import Table

        if self.variant == "grammatical":
            title = ("RIPA, gender-aware (grammatical variant): each word through the mean of its two forms on "
                     f"b = {self.relation}, minus the mean of {self.n_reference} reference pairs without semantic "
                     "gender" if self.n_reference else
                     "RIPA, gender-aware (grammatical variant): each word through the mean of its two forms, "
                     f"b = {self.relation} (grammatical gender projected out)")
        else:
            title = (f"RIPA (Ethayarajh et al. 2019): b from {self.n_pairs} pair(s), "
                     f"{100 * self.explained_variance_ratio:.1f}% of their variance")
        t = Table(title=title, title_justify="left")
        t.add_column("word")
        t.add_column("⟨w, b⟩", justify="right")
        if self.word_intervals:
            t.add_column("95% over the seed words", justify="right")
        order = np.argsort(-np.abs(np.asarray(self.ripa)))[:10]
        for i in order:
            extra = [] if not self.word_intervals else [
                "[{:+.3f}, {:+.3f}]".format(*self.word_intervals[i])]
            t.add_row(self.words[i], f"{self.ripa[i]:+.4f}", *extra)
        summary = (f"mean {self.mean:+.4f}, mean |RIPA| {self.mean_abs:.4f} over {len(self.words)} words "
                   f"({'unit' if self.unit else 'raw'} vectors); missing: {len(self.missing)}")
        if self.forms:
            f = self.forms
            summary += (f"\nper form on b: masculine {f['masculine']:+.4f}, feminine {f['feminine']:+.4f} (targets)"
                        + (f"; masculine {f['reference_masculine']:+.4f}, feminine {f['reference_feminine']:+.4f} "
                           f"(reference), whose midpoint {self.reference_offset:+.4f} is the zero"
                           if self.reference_offset is not None else ""))
        extras = bootstrap_lines(self) + (
            [f"warning: {self.warning}"] if self.warning else [])
        return Group(t, summary, *extras)


def relation_vector(store: VectorStore, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, float, list[str]]:
    """The relation vector b of ordered word pairs (x, y).

    One pair: b = (x − y) / ‖x − y‖. Several: the first principal component of the differences
    {x_i − y_i} (uncentred, as a direction through the origin), oriented so that the mean
    difference projects positive.

    Parameters
    ----------
    store : VectorStore
    pairs : sequence of (str, str)
        Ordered pairs (x, y); b points from y to x.

    Returns
    -------
    b : ndarray of shape (dim,), float64
        Unit norm.
    share : float
        The share of the differences' summed squared norm that lies along b (1.0 for one pair).
    missing : list of str
        Pair words not in the store (their pairs are not used).

    References
    ----------
    Ethayarajh, Duvenaud & Hirst (2019), §5: the relation vector of a word pair or, for several,
    the first principal component of their differences.

    Raises
    ------
    InputError
        No pair with both words in the store, or a pair of identical vectors.
    """
    used = [(x, y) for x, y in pairs if x in store and y in store]
    missing = list(dict.fromkeys(w for p in pairs for w in p if w not in store))
    if not used:
        raise InputError("no word pair has both words in the store; RIPA needs at least one")
    diff = (store.lookup([x for x, _ in used]).vectors.astype(np.float64)
            - store.lookup([y for _, y in used]).vectors.astype(np.float64))
    b, share = _relation(diff)
    return b, share, missing


def _relation(diff: np.ndarray) -> tuple[np.ndarray, float]:
    """The unit relation vector of pair differences (n_pairs, dim) and the share along it."""
    if not np.all(np.linalg.norm(diff, axis=1) > 0):
        raise InputError("a word pair has two identical vectors; its relation is undefined")
    _, s, vt = np.linalg.svd(diff, full_matrices=False)
    b = vt[0]
    if diff.mean(axis=0) @ b < 0:
        b = -b
    return b, float(s[0] ** 2 / np.sum(s ** 2))


def ripa(
    store: VectorStore,
    query: WordQuery,
    *,
    unit: bool = False,
    oov: Literal["raise", "ignore"] = "ignore",
    bootstrap: int = 0,
    bootstrap_seed: int | None = 0,
) -> RipaResult:
    """RIPA β(w; b) = ⟨w, b⟩ of each target word ``w`` with the relation of ``pairs``.

    Parameters
    ----------
    store : VectorStore
    query : WordQuery
        X = the words to score, A[i]/B[i] = ordered pairs defining the relation (``("he", "she")``:
        RIPA > 0 leans male); :meth:`WordQuery.with_pairs` builds it. Missing words are listed in
        the result, never silently dropped, and the query's lost-vocabulary rule applies (a pair
        with a missing word counts as lost).
    unit : bool, default False
        Unit-normalise the target vectors first. The paper uses the vectors as they are (the
        inner product then grows with the word's norm, which is part of its argument).
    oov : {"ignore", "raise"}, default "ignore"
    bootstrap : int, default 0
        Resamples of the bootstrap over the words (:func:`geobias.metrics.bootstrap.bootstrap_query`:
        the targets and the pairs resampled, the relation re-fitted each time); 0 computes none.
    bootstrap_seed : int or None, default 0

    Returns
    -------
    RipaResult

    Raises
    ------
    LostVocabularyError
        More than the query's threshold of the targets or of the pairs is out of vocabulary.
    InputError
        No target word in the store; a pair of identical vectors (see :func:`relation_vector`).

    References
    ----------
    Ethayarajh, Duvenaud & Hirst (2019). Understanding Undesirable Word Embedding Associations.
    ACL, §5 (RIPA, eq. 5: β(w; b) = ⟨w, b⟩; b from one pair or the first principal component
    of several pairs' differences).

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["he", "she", "nurse"], np.array([[1.0, 0], [-1, 0], [-0.5, 1]]))
    >>> ripa(s, WordQuery.with_pairs(["nurse"], [("he", "she")])).ripa
    [-0.5]
    """
    if not isinstance(query, WordQuery) or not query.paired_attributes:
        raise InputError("RIPA takes a query of targets and word pairs: WordQuery.with_pairs(targets, pairs)")
    rows = query.resolve(store, oov=oov, similarity="dot", test="RIPA")
    b, share = _relation(rows.a - rows.b)
    x = rows.x
    if unit:
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
    scores = x @ b
    # missing: the targets' first, then the pairs' (the order the result has always listed them in)
    missing = [w for w in rows.missing if w in set(query.X)] + [w for w in rows.missing if w not in set(query.X)]
    boot = None
    if bootstrap:
        from geobias.metrics.bootstrap import bootstrap_query

        boot = bootstrap_query(rows, "ripa", unit=unit, n_resamples=bootstrap, seed=bootstrap_seed)
    return RipaResult(rows.x_words, [float(v) for v in scores], float(scores.mean()), float(np.abs(scores).mean()),
                      len(rows.a_words), share, unit, missing, bootstrap=boot)



def ripa_grammatical(
    store: VectorStore,
    masculine: Sequence[str],
    feminine: Sequence[str],
    direction: np.ndarray,
    *,
    unit: bool = False,
    direction_name: str = "d_s",
    reference: tuple[Sequence[str], Sequence[str]] | None = None,
    definitional: tuple[Sequence[str], Sequence[str]] | None = None,
    d_g: np.ndarray | None = None,
    bootstrap: int = 0,
    bootstrap_seed: int | None = 0,
    confidence: float = 0.95,
) -> RipaResult:
    """Gender-aware RIPA for a language with grammatical gender (ours), its zero set by words that
    differ only by agreement.

    Ethayarajh et al.'s RIPA is β(w; b) = ⟨w, b⟩ with b the relation vector of gender pairs. In a
    language with grammatical gender the pairs' differences (il − elle, hombre − mujer) carry the
    agreement that separates every masculine form from every feminine one, so each form of a
    two-form word (infirmier, infirmière) scores by its grammatical gender. This variant scores a
    word through both its forms, on a direction without the nouns' grammatical class, against a
    reference of two-form words that have no semantic gender:

        b = d_s  (Zhou et al.'s d_PCA with the grammatical direction d_g projected out; unit,
                  masculine positive)
        β(o) = ⟨(m_o + f_o) / 2, b⟩ − mean_r ⟨(m_r + f_r) / 2, b⟩

    r over the reference pairs (the language's two-form adjectives: bon/bonne, heureux/heureuse).
    The midpoint alone does not cancel agreement: d_s still carries agreement (its definitional
    pairs are person nouns that agree), and one form is usually more marked than the other, so
    the two forms are not equal and opposite on b. Measured on fr-spacy-md, the 27 occupations'
    masculine forms project +2.49 and their feminine forms −6.42 on d_s (midpoint −1.96), and the
    17 adjectives' +0.68 and −5.50 (midpoint −2.41): the midpoint of a word without semantic gender
    sits at −2.41, not at 0. Subtracting the reference midpoint removes whatever agreement adds
    to a midpoint, symmetric or not, as long as the targets agree as the reference does; β = 0
    then reads "no more semantic lean than a word that only agrees" (tested on synthetic stores
    with symmetric and with asymmetric agreement). Without a reference the midpoint is returned
    uncentred and the result's ``warning`` says that its zero is not calibrated.

    Parameters
    ----------
    store : VectorStore
    masculine, feminine : sequence of str
        The two forms of each word, paired by position (equal for a one-form word).
    direction : ndarray of shape (dim,)
        b: d_s from :func:`geobias.directions.gender_directions` (normalised here).
    unit : bool, default False
        Unit-normalise each form before averaging (targets and reference alike).
    direction_name : str, default "d_s"
    reference : (masculine forms, feminine forms), optional
        Two-form words without semantic gender (the language's adjectives); pairs with a form out
        of vocabulary are left out (listed in ``missing``).
    definitional : (masculine words, feminine words), optional
        The definitional pairs b was fitted on, with ``d_g``: the bootstrap then re-fits b on each
        resample of them (d_PCA the first principal component of the pair-centred unit vectors,
        d_g projected out, masculine positive), so that the interval includes the choice of seed
        words. ``d_g`` is kept fixed (a refit of the LDA per resample is not done).
    d_g : ndarray of shape (dim,), optional
    bootstrap : int, default 0
        Resamples; 0 computes none. Each resample draws the definitional pairs (as pairs), the
        reference pairs and the targets (as pairs) with replacement. The result's ``bootstrap`` is
        the interval of the mean β over the targets; ``word_intervals`` gives each word's interval
        over the seed-word resamples (the word itself fixed), simultaneous over the words.
    bootstrap_seed : int or None, default 0
    confidence : float, default 0.95

    Returns
    -------
    RipaResult
        ``words`` are ``"m/f"`` (or the one form), ``variant="grammatical"``, ``n_pairs`` the
        words scored with both forms, ``explained_variance_ratio`` 1.0 (b is given); ``forms``
        the mean per-form projections of the targets and the reference, ``reference_offset`` the
        subtracted reference midpoint.

    Raises
    ------
    InputError
        Forms of unequal length, a zero or wrong-size direction, no word with both forms found,
        a reference or definitional list of unequal lengths; a bootstrap with fewer than 2
        definitional, reference or target pairs (a :class:`~geobias.errors.ParameterError` on
        field ``"bootstrap"``).

    References
    ----------
    Ethayarajh, Duvenaud & Hirst (2019). Understanding Undesirable Word Embedding Associations.
    ACL, §5 (RIPA, β(w; b) = ⟨w, b⟩). Zhou et al. (2019). Examining Gender Bias in Languages with
    Grammatical Gender. EMNLP, §3 (d_PCA, d_g, d_s) and §4 (MWEAT: a word judged through both its
    forms). The reference centring is ours.

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["infirmier", "infirmière"], np.array([[1.0, -0.25], [-1.0, -0.25]]))
    >>> ripa_grammatical(s, ["infirmier"], ["infirmière"], np.array([0.0, 1.0])).ripa   # grammar (axis 0) cancels
    [-0.25]
    >>> s = VectorStore(["avocat", "avocate", "bon", "bonne"],
    ...                 np.array([[0.0, 0.5], [0.0, -1.5], [1.0, 0.5], [1.0, -1.5]]))
    >>> ripa_grammatical(s, ["avocat"], ["avocate"], np.array([0.0, 1.0]), reference=(["bon"], ["bonne"])).ripa
    [0.0]
    """
    if len(masculine) != len(feminine):
        raise InputError(f"{len(masculine)} masculine and {len(feminine)} feminine forms; they pair by position")
    b = _unit_direction(direction, store.dim)
    found = [(m, f) for m, f in zip(masculine, feminine, strict=True) if m in store and f in store]
    missing = list(dict.fromkeys(w for pair in zip(masculine, feminine, strict=True) for w in pair if w not in store))
    if not found:
        raise InputError("no word has both its forms in the store")
    xm = store.lookup([m for m, _ in found], unit=unit).vectors.astype(np.float64)
    xf = store.lookup([f for _, f in found], unit=unit).vectors.astype(np.float64)
    mid = (xm + xf) / 2.0
    ref_mid = None
    forms = {"masculine": float((xm @ b).mean()), "feminine": float((xf @ b).mean())}
    if reference is not None:
        ref, ref_missing = _found_pairs(store, reference, "reference")
        missing += [w for w in ref_missing if w not in missing]
        if ref:
            rm = store.lookup([m for m, _ in ref], unit=unit).vectors.astype(np.float64)
            rf = store.lookup([f for _, f in ref], unit=unit).vectors.astype(np.float64)
            ref_mid = (rm + rf) / 2.0
            forms |= {"reference_masculine": float((rm @ b).mean()), "reference_feminine": float((rf @ b).mean())}
    offset = float((ref_mid @ b).mean()) if ref_mid is not None else 0.0
    scores = mid @ b - offset
    words = [m if m == f else f"{m}/{f}" for m, f in found]
    warning = None if ref_mid is not None else (
        "no reference of two-form words without semantic gender: the score is the forms' midpoint on d_s, whose "
        "zero is not calibrated (agreement that marks one form more than the other moves it)")
    boot = intervals = None
    if bootstrap:
        boot, intervals = _grammatical_bootstrap(store, mid, ref_mid, definitional, d_g, b, bootstrap=bootstrap,
                                                 seed=bootstrap_seed, confidence=confidence)
    return RipaResult(words, [float(v) for v in scores], float(scores.mean()), float(np.abs(scores).mean()),
                      sum(1 for m, f in found if m != f), 1.0, unit, missing, bootstrap=boot, variant="grammatical",
                      relation=direction_name, warning=warning, forms=forms,
                      reference_offset=None if ref_mid is None else offset,
                      n_reference=0 if ref_mid is None else len(ref_mid), word_intervals=intervals)


def _unit_direction(direction: np.ndarray, dim: int) -> np.ndarray:
    b = np.asarray(direction, dtype=np.float64).ravel()
    if b.shape[0] != dim or not np.linalg.norm(b) > 0:
        raise InputError(f"the direction has {b.shape[0]} values for {dim}-d vectors, or is zero")
    return b / np.linalg.norm(b)


def _found_pairs(store: VectorStore, pairs: tuple[Sequence[str], Sequence[str]], what: str):
    """``(masculine, feminine)`` lists → the pairs with both forms in ``store`` and the missing words."""
    ms, fs = pairs
    if len(ms) != len(fs):
        raise InputError(f"the {what} has {len(ms)} masculine and {len(fs)} feminine forms; they pair by position")
    found = [(m, f) for m, f in zip(ms, fs, strict=True) if m in store and f in store]
    missing = list(dict.fromkeys(w for pair in zip(ms, fs, strict=True) for w in pair if w not in store))
    return found, missing


def semantic_directions(diffs: np.ndarray, counts: np.ndarray, d_g: np.ndarray | None) -> np.ndarray:
    """d_s re-fitted on weighted definitional pairs, for many resamples at once.

    Parameters
    ----------
    diffs : ndarray of shape (n_pairs, dim)
        ``(m_i − f_i) / 2`` of the unit pair vectors: the pair-centred rows are ``±diffs``, so
        d_PCA, their first principal component, is the top right singular vector of ``diffs``.
    counts : ndarray of shape (b, n_pairs)
        How often each pair is drawn in each resample.
    d_g : ndarray of shape (dim,) or None
        Projected out (and the result renormalised) when given.

    Returns
    -------
    ndarray of shape (b, dim), float64
        Unit rows, oriented so that the resample's mean ``m − f`` projects positive.

    References
    ----------
    Zhou et al. (2019), EMNLP, §3 (d_PCA of the pair-centred definitional pairs; d_s).

    Examples
    --------
    >>> d = semantic_directions(np.array([[1.0, 0.1], [0.9, -0.1]]), np.ones((1, 2)), np.array([0.0, 1.0]))
    >>> (d.round(6) + 0.0).tolist()
    [[1.0, 0.0]]
    """
    if diffs.shape[0] <= diffs.shape[1]:  # few pairs: the (n, n) Gram matrix of each resample
        w = np.sqrt(counts)                                # (b, n)
        gram = diffs @ diffs.T
        _, vecs = np.linalg.eigh(w[:, :, None] * gram[None] * w[:, None, :])
        d = (vecs[:, :, -1] * w) @ diffs                   # d ∝ diffsᵀ (w ∘ v)
    else:  # many pairs: the (dim, dim) weighted scatter matrix
        scatter = np.einsum("bn,nd,ne->bde", counts, diffs, diffs)
        d = np.linalg.eigh(scatter)[1][:, :, -1]
    if d_g is not None:
        g = d_g / np.linalg.norm(d_g)
        d = d - np.outer(d @ g, g)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    lean = (counts @ diffs * d).sum(axis=1)                 # the resample's mean m − f on d (up to a positive factor)
    return d * np.where(lean < 0, -1.0, 1.0)[:, None]


def _grammatical_bootstrap(store, mid, ref_mid, definitional, d_g, b, *, bootstrap, seed, confidence):
    """The hierarchical bootstrap of :func:`ripa_grammatical`: the mean's interval and each word's."""
    from geobias.stats.bootstrap import bootstrap as run_bootstrap
    from geobias.stats.bootstrap import index_counts

    sizes = {"targets": len(mid)}
    diffs = None
    if definitional is not None:
        pairs, _ = _found_pairs(store, definitional, "definitional pairs")
        um = store.lookup([m for m, _ in pairs], unit=True).vectors.astype(np.float64)
        uf = store.lookup([f for _, f in pairs], unit=True).vectors.astype(np.float64)
        diffs = (um - uf) / 2.0
        sizes["definitional"] = len(diffs)
    if ref_mid is not None:
        sizes["reference"] = len(ref_mid)
    for name, n in sizes.items():
        if n < 2:  # a usage error for an explicit count; within lenient() (a default count) no interval
            from geobias.metrics.bootstrap import refuse_resampling

            refuse_resampling(InputError(f"the {name} have {n} pair(s) in the store; at least 2 are needed to "
                                         "resample"))
            return None, None
    g = None if d_g is None else np.asarray(d_g, dtype=np.float64).ravel()

    def directions(ix) -> np.ndarray:
        if diffs is None:
            return np.broadcast_to(b, (len(ix["targets"]), len(b)))
        return semantic_directions(diffs, index_counts(ix["definitional"], len(diffs)), g)

    def per_word(ix) -> np.ndarray:  # (b, n_targets): each word on its resample's b and reference
        d = directions(ix)
        out = np.einsum("td,bd->bt", mid, d)
        if ref_mid is not None:
            out -= (index_counts(ix["reference"], len(ref_mid)) @ ref_mid * d).sum(axis=1, keepdims=True) / len(ref_mid)
        return out

    # each chunk's per-word scores: the words' intervals use the same draws. The statistic sees the
    # estimate (one row), then the resamples of every set, then the two one-sided passes of the
    # two-way interval: only the first 1 + `bootstrap` rows are kept
    draws: list[np.ndarray] = []
    kept = [0]

    def mean_stat(ix) -> np.ndarray:
        words = per_word(ix)
        if kept[0] <= bootstrap:
            draws.append(words)
            kept[0] += len(words)
        return (index_counts(ix["targets"], len(mid)) * words).sum(axis=1) / len(mid)

    # the mean is ⟨mean of the targets − mean of the reference, b⟩ with b fitted to the definitional
    # pairs: the targets and the reference enter side by side, each crossed with the definitional
    # pairs, so the two-way design is (targets and reference) × (definitional pairs), and its interval
    # reads the two-way corrected spread (Owen 2007; docs: calibration). Without definitional pairs
    # (b given) the mean is a plain difference of means: nothing is crossed.
    crossed = None
    if "definitional" in sizes:
        crossed = (tuple(k for k in sizes if k != "definitional"), ("definitional",))
    boot = run_bootstrap(mean_stat, sizes, n_resamples=bootstrap, seed=seed, confidence=confidence,
                         crossed=crossed)
    from dataclasses import replace

    boot = replace(boot, quantity="mean")
    values = np.concatenate(draws[1:])  # the first call is the estimate on the sets as given
    # simultaneous over the words: all of them hold their truth together at `confidence`. The band's
    # half-width is c × each word's bootstrap SE, c the larger of the bootstrap's max-|t| quantile and
    # the Bonferroni-t value with (smallest seed set − 1) degrees of freedom: each word's SE is itself
    # estimated from that few seed pairs, a noise the max-|t| of the draws does not see (in simulation
    # the max-|t| band alone held every word's truth at once in 78-82 % of stores, with it 96 %).
    from scipy.stats import t as student_t

    est = draws[0][0]
    se = values.std(axis=0, ddof=1)
    se = np.where(se > 0, se, np.finfo(float).tiny)
    worst = np.max(np.abs(values - values.mean(axis=0)) / se, axis=1)
    seeds = [n for name, n in sizes.items() if name != "targets"]
    c = float(np.quantile(worst, confidence))
    if seeds:
        c = max(c, float(student_t.ppf(1 - (1 - confidence) / (2 * len(mid)), min(seeds) - 1)))
    low, high = est - c * se, est + c * se
    return boot, [(float(lo), float(hi)) for lo, hi in zip(low, high, strict=True)]


def _resampling(rows, *, unit: bool = False, quantity: str | None = None):
    """The targets, and the defining pairs as pairs, the relation re-fitted on each resample
    (:func:`geobias.metrics.bootstrap.ripa_resampling`); ``unit`` as :func:`ripa`'s."""
    t = np.asarray(rows.x, dtype=np.float64)
    if unit:
        t = t / np.linalg.norm(t, axis=1, keepdims=True)
    return ripa_resampling(t, rows.a, rows.b, quantity=quantity)


METRIC = declare(Metric(
    "ripa", ripa, RipaResult, "targets-and-pairs",
    summary="RIPA: the inner product of each target word with the relation vector of gendered word pairs.",
    sets=("targets", "pairs"), paired="the two words of each defining pair", quantities=("mean", "mean_abs"),
    resampling=_resampling, notes={"mean_abs": non_negative("read the interval of mean, which can"), **coverage_notes("ripa")},
))
