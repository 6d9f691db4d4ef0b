"""The Zhou et al. (2019) Tables 1–2 evaluation: bias and utility of every mitigation method
in the bilingual space of a gendered language and English."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from geobias.alignment import (
    CslsIndex,
    Dictionary,
    ProcrustesAligner,
    resolve,
    translation_accuracy,
)
from geobias.errors import InputError
from geobias.evaluation.analogy import NEUTRAL_SEEDS, seed_pairs, word_pair_translation
from geobias.evaluation.similarity import read_similarity_file, word_similarity
from geobias.mitigation import get_method
from geobias.mitigation._directions import merged_store
from geobias.mitigation.lexicon import GenderLexicon
from geobias.results import Result
from geobias.store import VectorStore

#: Column order of Zhou et al. Tables 1–2 → JSON keys.
METHOD_KEYS = {
    "original": "Original",
    "shift_ori": "Shift Ori",
    "shift_en": "Shift EN",
    "de_align": "De-Align",
    "hybrid_ori": "Hybrid Ori",
    "hybrid_en": "Hybrid EN",
}
#: Row order → labels.
METRIC_LABELS = {
    "mweat_statistic": "MWEAT statistic",
    "mweat_p_value": "MWEAT p-value",
    "similarity_pearson": "Similarity Pearson",
    "similarity_spearman": "Similarity Spearman",
    "similarity_coverage": "Similarity coverage",
    "p_at_1_nn_src_tgt": "P@1 NN src→en",
    "p_at_5_nn_src_tgt": "P@5 NN src→en",
    "p_at_1_csls_src_tgt": "P@1 CSLS src→en",
    "p_at_5_csls_src_tgt": "P@5 CSLS src→en",
    "p_at_1_nn_tgt_src": "P@1 NN en→src",
    "p_at_5_nn_tgt_src": "P@5 NN en→src",
    "p_at_1_csls_tgt_src": "P@1 CSLS en→src",
    "p_at_5_csls_tgt_src": "P@5 CSLS en→src",
    "mrr_feminine": "MRR feminine",
    "mrr_masculine": "MRR masculine",
    "mrr_difference": "MRR diff. (m − f)",
    "asd": "ASD (m − f)",
}


@dataclass(frozen=True)
class EvaluationResult(Result):
    """One table: ``table[method_key][metric_key] = value``.

    Attributes
    ----------
    lang : str
    table : dict
        Methods keyed ``original, shift_ori, shift_en, de_align, hybrid_ori, hybrid_en``; metrics
        keyed as in :data:`METRIC_LABELS` (``None`` where a metric could not be computed).
    coverage : dict
        Queries covered by the translation dictionaries, similarity pairs and analogy triples.
    settings : dict
        Dictionaries, permutations, seed, CSLS k, word lists used.
    timings : dict
        Seconds per method.
    """

    lang: str
    table: dict[str, dict[str, float | None]]
    coverage: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)

    def to_dict(self):  # --json: exactly {method: {metric: value}}
        from geobias.results import jsonable

        return jsonable(self.table)


@dataclass(frozen=True)
class _Fitted:
    direction_: np.ndarray
    cv_accuracy_: float


def bilingual_mweat(src: VectorStore, en: VectorStore, occupations: Sequence, male: Sequence[str], female: Sequence[str],
                    *, n_permutations: int, seed: int):
    """MWEAT with the gendered language's occupations (both forms, in ``src``) as targets and
    English male/female attribute words (in ``en``) as attributes, in the shared space.

    Parameters
    ----------
    src : VectorStore
        The gendered language, in the space shared with ``en``.
    en : VectorStore
    occupations : sequence of (feminine, masculine, english)
        X = masculine forms, Y = feminine forms.
    male, female : sequence of str
        English attribute words A and B.
    n_permutations : int
        Monte-Carlo permutations (exact enumeration when the partitions fit the budget).
    seed : int

    Returns
    -------
    MweatResult
        See :func:`geobias.metrics.mweat`; attribute words appear prefixed ``en:``, and words
        out of vocabulary are listed in ``missing``.

    Raises
    ------
    InputError
        Stores of different dimensions, or too few words in vocabulary.

    References
    ----------
    Zhou et al. (2019), eq. 1 and §4.2 (MWEAT).
    """
    from geobias.metrics import mweat

    occ = [(o[0], o[1], o[2]) for o in occupations]
    merged = merged_store([
        ("", src, [w for o in occ for w in (o[0], o[1])]),
        ("en:", en, list(male) + list(female)),
    ])
    return mweat(merged, occ, [f"en:{w}" for w in male], [f"en:{w}" for w in female],
                 n_permutations=n_permutations, seed=seed, oov="ignore")


def evaluate(
    src: VectorStore,
    en: VectorStore,
    dictionary: Dictionary,
    test_dictionary: Dictionary,
    *,
    similarity: str | os.PathLike | None = None,
    methods: Sequence[str] = tuple(METHOD_KEYS),
    n_permutations: int = 10_000,
    seed: int = 0,
    csls_k: int = 10,
    lexicon: GenderLexicon | None = None,
    en_lexicon: GenderLexicon | None = None,
    analogy_seeds: Sequence[str] = NEUTRAL_SEEDS,
    progress: Callable[[str], None] | None = None,
) -> EvaluationResult:
    """Evaluate the original bilingual space and every mitigation method (Zhou et al. Tables 1–2).

    Parameters
    ----------
    src : VectorStore
        The gendered language (unaligned original vectors).
    en : VectorStore
        English.
    dictionary : Dictionary
        Source → English training pairs (Procrustes; also the analogy seeds).
    test_dictionary : Dictionary
        Source → English test pairs (word translation; inverted for en → source).
    similarity : path, optional
        Word-similarity file of the gendered language (``w1 w2 score``).
    methods : sequence of str
        Keys of :data:`METHOD_KEYS` (``original`` is the aligned, unmitigated space).
    n_permutations, seed : MWEAT permutation test settings.
    csls_k : int, default 10
    lexicon, en_lexicon : GenderLexicon, optional
        Default: the project's lists.
    analogy_seeds : sequence of str
        English gender-neutral seed words E_i of the word-pair analogy (their first translation
        in ``dictionary`` gives S_i).
    progress : callable, optional
        Called with a short message before each method.

    Returns
    -------
    EvaluationResult

    Raises
    ------
    InputError
        ``src`` is English; unknown method key; dimension mismatch; a dictionary with no pair
        in vocabulary; a similarity file that is malformed or has fewer than 3 pairs in
        vocabulary; word lists entirely out of vocabulary. Checked before the first method runs
        where the check does not depend on the method.

    References
    ----------
    Zhou et al. (2019), §4.3 and Tables 1–2; Conneau et al. (2018) (P@k, CSLS k = 10).

    Notes
    -----
    MWEAT is measured across languages: X/Y = masculine/feminine occupation forms of the gendered
    language, A/B = the English male/female attribute words, all in the shared space (so that
    De-Align, which only rotates the gendered language, can change it). Word similarity is
    computed in the gendered language. Every store is unit-normalised before evaluation.
    """
    import time

    if src.lang == "en":
        raise InputError("evaluate compares mitigation methods on a gendered language (fr, es, de); got en")
    unknown = [m for m in methods if m not in METHOD_KEYS]
    if unknown:
        raise InputError(f"unknown method(s) {', '.join(unknown)}; choose from {', '.join(METHOD_KEYS)}")
    from geobias import wordlists

    lang = src.lang or "xx"
    lex = lexicon or GenderLexicon.for_language(lang)
    en_lex = en_lexicon or GenderLexicon.for_language("en")
    occupations = [tuple(o) for o in wordlists.occupations(lang)] if lexicon is None else [
        t for t in lex.two_form]
    male, female = wordlists.attribute_words("en") if en_lexicon is None else (
        [m for _, m in en_lex.definitional_pairs], [f for f, _ in en_lex.definitional_pairs])
    adjectives = [tuple(a) for a in wordlists.adjectives(lang)] if lexicon is None else list(lex.two_form)
    sim_pairs = read_similarity_file(similarity) if similarity is not None else None
    src = src.normalized()
    en = en.normalized()
    # fail before the first (slow) method on inputs whose coverage no method changes
    if src.dim != en.dim:
        raise InputError(f"dimensions differ: {lang} {src.dim}, en {en.dim}")
    resolve(dictionary, src, en)
    resolve(test_dictionary, src, en)
    if sim_pairs is not None:
        try:
            word_similarity(src, sim_pairs)
        except InputError as exc:
            raise InputError(f"{similarity}: {exc}") from None
    test_inv = test_dictionary.inverted()
    # d_g is fitted once on the unaligned store and carried into each aligned space
    from geobias.mitigation._directions import grammatical_direction

    d_g, cv = grammatical_direction(src, lex.masculine_nouns, lex.feminine_nouns)
    grammatical = _Fitted(d_g, cv)
    table: dict[str, dict[str, float | None]] = {}
    timings: dict[str, float] = {}
    coverage: dict = {}
    for key in methods:
        t0 = time.perf_counter()
        if progress:
            progress(METHOD_KEYS[key])
        if key == "original":
            aligner = ProcrustesAligner().fit(src, en, dictionary)
            s_out, e_out = aligner.transform(src), en
        else:
            est = get_method(key.replace("_", "-"))(lexicon=lex, en_lexicon=en_lex, grammatical=grammatical)
            est.fit(src, en, dictionary)
            s_out, e_out = est.transform_pair(src, en)
        row: dict[str, float | None] = {}
        mw = bilingual_mweat(s_out, e_out, occupations, male, female, n_permutations=n_permutations, seed=seed)
        row["mweat_statistic"] = float(mw.statistic)
        row["mweat_p_value"] = float(mw.p_value)
        if sim_pairs is not None:
            sim = word_similarity(s_out, sim_pairs)
            row.update(similarity_pearson=sim.pearson, similarity_spearman=sim.spearman,
                       similarity_coverage=sim.coverage)
            coverage["similarity"] = {"covered": sim.n_covered, "pairs": sim.n_pairs}
        else:
            row.update(similarity_pearson=None, similarity_spearman=None, similarity_coverage=None)
        fwd = CslsIndex(s_out.unit_vectors, e_out.unit_vectors, k=csls_k)
        bwd = CslsIndex(e_out.unit_vectors, s_out.unit_vectors, k=csls_k)
        for tag, a, b, dico, index in (("src_tgt", s_out, e_out, test_dictionary, fwd),
                                       ("tgt_src", e_out, s_out, test_inv, bwd)):
            for how in ("nn", "csls"):
                r = translation_accuracy(a, b, dico, method=how, ks=(1, 5), csls_k=csls_k, index=index)
                row[f"p_at_1_{how}_{tag}"] = r.precision["p_at_1"]
                row[f"p_at_5_{how}_{tag}"] = r.precision["p_at_5"]
                coverage[f"translation_{tag}"] = {"queries": r.n_queries, "source_words": r.n_source_words,
                                                  "coverage": r.coverage}
        seeds = seed_pairs(dictionary, s_out, e_out, analogy_seeds)
        an = word_pair_translation(s_out, e_out, adjectives, seeds)
        row.update(mrr_feminine=an.mrr_feminine, mrr_masculine=an.mrr_masculine,
                   mrr_difference=an.mrr_difference, asd=an.asd)
        coverage["analogy"] = {"words": an.n_words, "seeds": len(seeds), "missing": an.missing}
        coverage["mweat"] = {"n_pairs": mw.n_pairs, "missing": list(mw.missing)}
        table[key] = row
        timings[key] = time.perf_counter() - t0
    settings = {"dictionary": dictionary.source, "test_dictionary": test_dictionary.source,
                "similarity": str(similarity) if similarity else None, "n_permutations": n_permutations,
                "seed": seed, "csls_k": csls_k, "mweat_attributes": "English male/female attribute words"}
    return EvaluationResult(lang, table, coverage, settings, timings)


