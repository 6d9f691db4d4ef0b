"""Word-pair translation by analogy (Zhou et al. 2019, §4.3).

For an English word E_o with two forms in the gendered language (S_o^f, S_o^m) and a seed
translation pair (E_i, S_i) of gender-neutral words, rank every word S of the gendered store by
cos(S, E_o − E_i + S_i). The reciprocal ranks of the feminine and of the masculine form,
averaged over words and seeds, give MRR_f and MRR_m; their difference (masculine − feminine)
shows which form the bilingual space prefers. ASD (average similarity difference) is the mean of
cos(E_o, S_o^m) − cos(E_o, S_o^f) (signed: positive = the masculine form is closer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from geobias.alignment import Dictionary
from geobias.errors import InputError
from geobias.results import Result
from geobias.store import VectorStore

#: English gender-neutral function words used as seeds E_i (Zhou et al. 2019 use these).
NEUTRAL_SEEDS = ("and", "for", "with", "over", "than", "most", "each", "between", "what", "until")


@dataclass(frozen=True)
class AnalogyResult(Result):
    """Word-pair translation by analogy.

    Attributes
    ----------
    mrr_feminine, mrr_masculine : float
        Mean reciprocal rank (1 = always first) of the feminine / masculine form.
    mrr_difference : float
        ``mrr_masculine − mrr_feminine``.
    asd : float
        Mean of cos(E, S_m) − cos(E, S_f).
    n_words : int
        Triples used (both forms and the English word in vocabulary, forms distinct).
    seeds : list of (str, str)
        (E_i, S_i) seed pairs used.
    missing : list of str
    """

    mrr_feminine: float
    mrr_masculine: float
    mrr_difference: float
    asd: float
    n_words: int
    seeds: list[tuple[str, str]]
    missing: list[str] = field(default_factory=list)


def split_triples(triples: Sequence, src: VectorStore, en: VectorStore, *, distinct_forms: bool = False
                  ) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Split ``(feminine, masculine, english)`` triples into usable ones and missing words.

    Parameters
    ----------
    triples : sequence of (feminine, masculine, english)
        Extra fields (e.g. an :class:`~geobias.wordlists.Occupation`'s) are ignored.
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


def seed_pairs(dictionary: Dictionary, src: VectorStore, en: VectorStore,
               english: Sequence[str] = NEUTRAL_SEEDS) -> list[tuple[str, str]]:
    """(E_i, S_i): each neutral English word with its first translation in ``dictionary``
    (source → English pairs), both in vocabulary.

    Parameters
    ----------
    dictionary : Dictionary
        Source → English pairs (the training dictionary).
    src, en : VectorStore
    english : sequence of str, default :data:`NEUTRAL_SEEDS`

    Returns
    -------
    list of (str, str)
        ``(E_i, S_i)`` in the order of ``english``; English words without an in-vocabulary
        translation are left out (the caller reports ``len(seeds)``).
    """
    out = []
    for e in english:
        s = next((s for s, t in dictionary.pairs if t == e and s in src), None)
        if s is not None and e in en:
            out.append((e, s))
    return out


def word_pair_translation(src: VectorStore, en: VectorStore, triples: Sequence, seeds: Sequence[tuple[str, str]]) -> AnalogyResult:
    """MRR of the feminine and masculine forms and ASD (Zhou et al. 2019, §4.3).

    Parameters
    ----------
    src : VectorStore
        The gendered language, aligned to ``en``.
    en : VectorStore
    triples : sequence of (feminine, masculine, english)
    seeds : sequence of (E_i, S_i)

    Returns
    -------
    AnalogyResult
        Ranks among all words of ``src`` (1 = best; ties share the best rank), averaged over
        every (triple, seed) combination; cosines on unit-normalised float32 rows.

    Raises
    ------
    InputError
        No usable triple or no seed.

    References
    ----------
    Zhou et al. (2019), §4.3 (word-pair translation: MRR of the feminine and masculine forms,
    and ASD).
    """
    if not seeds:
        raise InputError("no seed translation pair (E_i, S_i) is in the vocabularies")
    used, missing = split_triples(triples, src, en, distinct_forms=True)
    if not used:
        raise InputError("no (feminine, masculine, english) triple is fully in vocabulary")
    su = src.unit_vectors
    eu = en.unit_vectors
    e_o = eu[[en.index[e] for _, _, e in used]].astype(np.float64)
    e_i = eu[[en.index[e] for e, _ in seeds]].astype(np.float64)
    s_i = su[[src.index[s] for _, s in seeds]].astype(np.float64)
    q = (e_o[:, None, :] - e_i[None, :, :] + s_i[None, :, :]).reshape(-1, su.shape[1])
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    scores = q.astype(np.float32) @ su.T  # (n_words * n_seeds, n_src)
    fi = np.repeat([src.index[f] for f, _, _ in used], len(seeds))
    mi = np.repeat([src.index[m] for _, m, _ in used], len(seeds))
    rows = np.arange(len(q))
    rank_f = 1 + np.sum(scores > scores[rows, fi][:, None], axis=1)
    rank_m = 1 + np.sum(scores > scores[rows, mi][:, None], axis=1)
    mrr_f, mrr_m = float(np.mean(1.0 / rank_f)), float(np.mean(1.0 / rank_m))
    cos_f = np.sum(e_o * su[[src.index[f] for f, _, _ in used]], axis=1)
    cos_m = np.sum(e_o * su[[src.index[m] for _, m, _ in used]], axis=1)
    return AnalogyResult(mrr_f, mrr_m, mrr_m - mrr_f, float(np.mean(cos_m - cos_f)), len(used),
                         list(seeds), missing)
