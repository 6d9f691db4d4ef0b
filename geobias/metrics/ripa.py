"""RIPA, the relational inner product association (Ethayarajh, Duvenaud & Hirst 2019)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from geobias.errors import InputError
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
        measure agreement as much as bias).
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

    def __rich__(self):
        """The table the CLI prints: the ten words with the largest |RIPA| and the summary."""
        from rich.console import Group
        from rich.table import Table

        if self.relation == "d_s":
            title = ("RIPA, gender-aware (grammatical variant): each word through the mean of its two forms, "
                     "b = d_s (grammatical gender projected out)")
        else:
            title = (f"RIPA (Ethayarajh et al. 2019): b from {self.n_pairs} pair(s), "
                     f"{100 * self.explained_variance_ratio:.1f}% of their variance")
        t = Table(title=title, title_justify="left")
        t.add_column("word")
        t.add_column("⟨w, b⟩", justify="right")
        order = np.argsort(-np.abs(np.asarray(self.ripa)))[:10]
        for i in order:
            t.add_row(self.words[i], f"{self.ripa[i]:+.4f}")
        summary = (f"mean {self.mean:+.4f}, mean |RIPA| {self.mean_abs:.4f} over {len(self.words)} words "
                   f"({'unit' if self.unit else 'raw'} vectors); missing: {len(self.missing)}")
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
) -> RipaResult:
    """Gender-aware RIPA for a language with grammatical gender.

    Ethayarajh et al.'s RIPA is β(w; b) = ⟨w, b⟩ with b the relation vector of gender pairs. In a
    language with grammatical gender the pairs' differences (il − elle, hombre − mujer) carry the
    agreement that separates every masculine form from every feminine one, so each form of a
    two-form word (infirmier, infirmière) scores by its grammatical gender: the English-style
    figure measures agreement. This variant takes the relation vector without grammar and scores
    a word through both its forms, as MWEAT judges a word by both forms:

        b = d_s  (Zhou et al.'s d_PCA with the grammatical direction d_g projected out; unit,
                  masculine positive)
        β(o) = ⟨(m_o + f_o) / 2, b⟩ = (β(m_o; b) + β(f_o; b)) / 2

    so the agreement component, equal and opposite in the two forms to first order, cancels,
    and what remains is the semantic gender association of the word. A one-form word (the two
    forms equal) scores ⟨w, b⟩.

    Parameters
    ----------
    store : VectorStore
    masculine, feminine : sequence of str
        The two forms of each word, paired by position (equal for a one-form word).
    direction : ndarray of shape (dim,)
        b: d_s from :func:`geobias.directions.gender_directions` (normalised here).
    unit : bool, default False
        Unit-normalise each form before averaging.
    direction_name : str, default "d_s"

    Returns
    -------
    RipaResult
        ``words`` are ``"m/f"`` (or the one form), ``variant="grammatical"``, ``n_pairs`` the
        words scored with both forms, ``explained_variance_ratio`` 1.0 (b is given).

    Raises
    ------
    InputError
        Forms of unequal length, a zero or wrong-size direction, no word with both forms found.

    References
    ----------
    Ethayarajh, Duvenaud & Hirst (2019). Understanding Undesirable Word Embedding Associations.
    ACL, §5 (RIPA, β(w; b) = ⟨w, b⟩). Zhou et al. (2019). Examining Gender Bias in Languages with
    Grammatical Gender. EMNLP, §3 (d_s) and §4 (MWEAT: a word judged through both its forms).

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["infirmier", "infirmière"], np.array([[1.0, -0.25], [-1.0, -0.25]]))
    >>> ripa_grammatical(s, ["infirmier"], ["infirmière"], np.array([0.0, 1.0])).ripa   # grammar (axis 0) cancels
    [-0.25]
    """
    if len(masculine) != len(feminine):
        raise InputError(f"{len(masculine)} masculine and {len(feminine)} feminine forms; they pair by position")
    b = np.asarray(direction, dtype=np.float64).ravel()
    if b.shape[0] != store.dim or not np.linalg.norm(b) > 0:
        raise InputError(f"the direction has {b.shape[0]} values for {store.dim}-d vectors, or is zero")
    b = b / np.linalg.norm(b)
    found = [(m, f) for m, f in zip(masculine, feminine, strict=True) if m in store and f in store]
    missing = list(dict.fromkeys(w for pair in zip(masculine, feminine, strict=True) for w in pair if w not in store))
    if not found:
        raise InputError("no word has both its forms in the store")
    xm = store.lookup([m for m, _ in found], unit=unit).vectors.astype(np.float64)
    xf = store.lookup([f for _, f in found], unit=unit).vectors.astype(np.float64)
    scores = ((xm + xf) / 2.0) @ b
    words = [m if m == f else f"{m}/{f}" for m, f in found]
    return RipaResult(words, [float(v) for v in scores], float(scores.mean()), float(np.abs(scores).mean()),
                      sum(1 for m, f in found if m != f), 1.0, unit, missing, variant="grammatical",
                      relation=direction_name)
