"""Word-pair translation by analogy (Zhou et al. 2019, §4.3).

Seeds: common English adjectives E_i with both forms in the gendered language (S_i^f, S_i^m).
For every occupation E_o with forms (S_o^f, S_o^m), every adjective and each gender g, the query
is q = E_o − E_i + S_i^g; every word of the gendered store except S_i^g is ranked by cos(·, q),
and the correct answer is the occupation form that agrees in gender with S_i^g (S_o^g).
MRR is averaged over the feminine-S_i queries (F MRR) and over the masculine ones (M MRR).
ASD (average similarity difference) is the mean over all queries of
|cos(q, S_o^f) − cos(q, S_o^m)|.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from geobias.errors import InputError
from geobias.results import Result
from geobias.store import VectorStore

#: Number of English adjectives E_i in the paper's word-pair translation task (§4.3).
N_ADJECTIVES = 7


@dataclass(frozen=True)
class AnalogyResult(Result):
    """Word-pair translation by analogy (Zhou et al. 2019, §4.3).

    Attributes
    ----------
    mrr_feminine, mrr_masculine : float
        Mean reciprocal rank (1 = always first) of the correct occupation form over the queries
        whose S_i is feminine / masculine.
    mrr_difference : float
        ``mrr_masculine − mrr_feminine``.
    asd : float
        Mean over all queries of |cos(q, S_o^f) − cos(q, S_o^m)| (non-negative).
    n_words : int
        Occupations used (both forms and the English word in vocabulary, forms distinct).
    n_queries : int
        Queries per gender (``n_words × len(adjectives)``); twice this in all.
    adjectives : list of (str, str, str)
        ``(S_i^f, S_i^m, E_i)`` used.
    missing : list of str
        Out-of-vocabulary occupation words.
    """

    mrr_feminine: float
    mrr_masculine: float
    mrr_difference: float
    asd: float
    n_words: int
    n_queries: int
    adjectives: list[tuple[str, str, str]]
    missing: list[str] = field(default_factory=list)


def split_triples(triples: Sequence, src: VectorStore, en: VectorStore, *, distinct_forms: bool = False
                  ) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Split ``(feminine, masculine, english)`` triples into usable ones and missing words.

    Parameters
    ----------
    triples : sequence of (feminine, masculine, english)
        Extra fields (e.g. an :class:`~geobias.wordlists.TwoFormWord`'s) are ignored.
    src, en : VectorStore
        The two forms are looked up in ``src``, the English word in ``en``.
    distinct_forms : bool, default False
        Also leave out triples whose two forms coincide (epicene words), without listing them.

    Returns
    -------
    used : list of (str, str, str)
        Triples with all three words in vocabulary, in input order.
    missing : list of str
        Out-of-vocabulary words, sorted, each once (never dropped silently: results list them).
    """
    used, missing = [], set()
    for t in triples:
        f, m, e = t[0], t[1], t[2]
        miss = [w for w in (f, m) if w not in src] + ([e] if e not in en else [])
        if miss:
            missing.update(miss)
        elif not (distinct_forms and f == m):
            used.append((f, m, e))
    return used, sorted(missing)


def select_adjectives(adjectives: Sequence, src: VectorStore, en: VectorStore,
                      n: int = N_ADJECTIVES) -> list[tuple[str, str, str]]:
    """The first ``n`` adjectives ``(feminine, masculine, english)`` with distinct forms and all
    three words in vocabulary, in list order (our ``wordlists/<lang>/adjectives.tsv``; the paper
    does not list its 7).

    Raises
    ------
    InputError
        No adjective usable.
    """
    used, _ = split_triples(adjectives, src, en, distinct_forms=True)
    if not used:
        raise InputError("no (feminine, masculine, english) adjective is fully in vocabulary")
    return used[:n]


def word_pair_translation(src: VectorStore, en: VectorStore, occupations: Sequence,
                          adjectives: Sequence) -> AnalogyResult:
    """F MRR, M MRR and ASD of the word-pair translation task (Zhou et al. 2019, §4.3).

    Parameters
    ----------
    src : VectorStore
        The gendered language, aligned to ``en``.
    en : VectorStore
    occupations : sequence of (feminine, masculine, english)
        E_o and its two forms S_o^f, S_o^m (extra fields ignored; epicene ones left out).
    adjectives : sequence of (feminine, masculine, english)
        E_i and its two forms S_i^f, S_i^m, all used (see :func:`select_adjectives`).

    Returns
    -------
    AnalogyResult
        Ranks among all words of ``src`` except S_i (1 = best; ties share the best rank);
        cosines on unit-normalised rows, query built in float64 and normalised; ranks are the
        float64 ranks (every word scored in float32, those within float32 error of the target
        re-scored in float64).

    Raises
    ------
    InputError
        No usable occupation or adjective.

    References
    ----------
    Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019), §4.3 (word-pair translation:
    q = E_o − E_i + S_i, F/M MRR and ASD; FR Original 0.166 / 0.655 / 0.121).
    """
    used, missing = split_triples(occupations, src, en, distinct_forms=True)
    if not used:
        raise InputError("no (feminine, masculine, english) occupation is fully in vocabulary")
    adj, _ = split_triples(adjectives, src, en, distinct_forms=True)
    if not adj:
        raise InputError("no (feminine, masculine, english) adjective is fully in vocabulary")
    su = src.unit_vectors
    eu = en.unit_vectors
    e_o = eu[[en.index[e] for _, _, e in used]].astype(np.float64)  # (n_o, d)
    e_i = eu[[en.index[e] for _, _, e in adj]].astype(np.float64)  # (n_a, d)
    occ_idx = {"f": np.array([src.index[f] for f, _, _ in used]),
               "m": np.array([src.index[m] for _, m, _ in used])}
    rr: dict[str, np.ndarray] = {}
    asd_parts = []
    occ_cols = np.concatenate([occ_idx["f"], occ_idx["m"]])
    occ64_t = su[occ_cols].astype(np.float64).T  # (d, 2 n_o): the occupation forms, float64
    # float32 scores rank every word; those within `eps` of the target's float64 score are
    # re-scored in float64. eps bounds the float32 error of a dot of two unit vectors in d
    # dimensions (Higham: |fl(x·y) − x·y| ≤ γ_d Σ|x_i y_i| ≤ d·u/(1 − d·u)) plus rounding the
    # query to float32 (≤ u), with a factor 2 to spare: the ranks are the float64 ranks.
    eps = (su.shape[1] + 2) * 2.0**-23
    n_o = len(used)
    for g, col in (("f", 0), ("m", 1)):
        s_idx = np.array([src.index[a[col]] for a in adj])
        s_i = su[s_idx].astype(np.float64)
        q = (e_o[:, None, :] - e_i[None, :, :] + s_i[None, :, :]).reshape(-1, su.shape[1])
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        rows = np.arange(len(q))
        occ = q @ occ64_t  # (n_o * n_a, 2 n_o): float64 scores of the occupation forms
        cf = occ[rows, np.repeat(np.arange(n_o), len(adj))]
        cm = occ[rows, n_o + np.repeat(np.arange(n_o), len(adj))]
        asd_parts.append(np.abs(cf - cm))
        target = np.repeat(occ_idx[g], len(adj))
        t64 = np.einsum("nd,nd->n", q, su[target].astype(np.float64))
        scores = q.astype(np.float32) @ su.T  # (n_o * n_a, n_src)
        excl = np.tile(s_idx, len(used))  # S_i of each query (occupation-major order)
        scores[rows, excl] = -np.inf
        # float32 bounds rounded outwards: above `hi` is above the target in float64, below `lo`
        # is not; the band between them (the target itself among it) is re-scored in float64
        hi = np.nextafter((t64 + eps).astype(np.float32), np.float32(np.inf))[:, None]
        lo = np.nextafter((t64 - eps).astype(np.float32), np.float32(-np.inf))[:, None]
        above = np.count_nonzero(scores > hi, axis=1)
        qi, ci = np.divmod(np.flatnonzero((scores >= lo) & (scores <= hi)), scores.shape[1])
        exact = np.einsum("nd,nd->n", q[qi], su[ci].astype(np.float64))
        rank = 1 + above + np.bincount(qi[exact > t64[qi]], minlength=len(q))
        rr[g] = 1.0 / rank
    mrr_f, mrr_m = float(rr["f"].mean()), float(rr["m"].mean())
    asd = float(np.concatenate(asd_parts).mean())
    return AnalogyResult(mrr_f, mrr_m, mrr_m - mrr_f, asd, len(used), len(used) * len(adj),
                         [tuple(a) for a in adj], missing)
