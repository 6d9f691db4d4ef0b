"""The Zhou et al. (2019) Tables 1–2 evaluation: bias and utility of every mitigation method
in the bilingual space of a gendered language and English."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from geobias._progress import ProgressArg, reporter
from geobias.alignment import (
    CslsIndex,
    Dictionary,
    resolve,
    translation_accuracy,
)
from geobias.errors import InputError
from geobias.evaluation.analogy import N_ADJECTIVES, select_adjectives, word_pair_translation
from geobias.evaluation.recovery import RECOVERY_METRICS
from geobias.evaluation.similarity import read_similarity_file, word_similarity
from geobias.mitigation import get_method
from geobias.mitigation.bilingual import shared_procrustes
from geobias.mitigation.lexicon import GenderLexicon
from geobias.query import WordQuery
from geobias.results import Result
from geobias.store import VectorStore
from geobias.store.merge import merged_store

#: Column order of Zhou et al. Tables 1–2: the method's registry key (as
#: :func:`geobias.mitigation.get_method` knows it, also the JSON key) → its label; ``original``
#: is the aligned, unmitigated space.
METHOD_KEYS = {
    "original": "Original",
    "shift-ori": "Shift Ori",
    "shift-en": "Shift EN",
    "de-align": "De-Align",
    "hybrid-ori": "Hybrid Ori",
    "hybrid-en": "Hybrid EN",
}
#: Row order → labels.
METRIC_LABELS = {
    "mweat_statistic": "MWEAT statistic",
    "mweat_p_value": "MWEAT p-value",
    "mweat_difference": "Σ_X s − Σ_Y s (ours)",
    "mweat_difference_p_value": "  its p-value (ours)",
    "mweat_effect_size": "  effect size (ours)",
    "mweat_crosslingual": "MWEAT cross-lingual (ours)",
    "mweat_crosslingual_p_value": "  its p-value (ours)",
    "inanimate_bias_mean": "Inanimate b_w mean",
    "inanimate_bias_max": "Inanimate b_w max",
    "n_neutralized": "Neutralised words",
    "n_pairs_shifted": "Two-form pairs shifted",
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
    "p_at_1_nn_tgt_src_reversed": "P@1 NN en→src, src→en test pairs reversed (ours)",
    "p_at_5_nn_tgt_src_reversed": "P@5 NN en→src, src→en test pairs reversed (ours)",
    "p_at_1_csls_tgt_src_reversed": "P@1 CSLS en→src, src→en test pairs reversed (ours)",
    "p_at_5_csls_tgt_src_reversed": "P@5 CSLS en→src, src→en test pairs reversed (ours)",
    "mrr_feminine": "MRR feminine",
    "mrr_masculine": "MRR masculine",
    "mrr_difference": "MRR diff. (m − f)",
    "asd": "ASD |f − m|",
    "n_translation_queries_src_tgt": "Translation queries src→en",
    "n_translation_queries_tgt_src": "Translation queries en→src",
    "n_translation_queries_tgt_src_reversed": "Translation queries en→src, reversed pairs (ours)",
    "n_word_pair_queries": "Word-pair queries per gender",
    **RECOVERY_METRICS,
}
#: Rows that hold counts (ints in the JSON, printed without decimals).
COUNT_METRICS = frozenset({"n_neutralized", "n_pairs_shifted", "n_translation_queries_src_tgt",
                           "n_translation_queries_tgt_src", "n_translation_queries_tgt_src_reversed",
                           "n_word_pair_queries"})
#: Why the en → src rows read lower when they come from the src → en test pairs reversed (the
#: ``*_tgt_src_reversed`` keys, printed under the table and kept in ``settings``).
REVERSED_TEST_NOTE = ("en→{lang} rows from the {lang}→en test pairs reversed (ours, not the paper's protocol: no "
                      "en→{lang} test dictionary was given); they read lower than MUSE's en-{lang} test file gives, "
                      "since the only answers counted correct are the {lang} words of that file (MUSE's: frequency ranks "
                      "5000-6500), so "
                      "an English query whose usual translation is more frequent counts as missed. For Zhou et al.'s "
                      "EN→{LANG} rows give an en→{lang} test dictionary (MUSE's en-{lang}.5000-6500.txt)")


@dataclass(frozen=True)
class EvaluationResult(Result):
    """One table: ``table[method_key][metric_key] = value``.

    Attributes
    ----------
    lang : str
    table : dict
        Methods keyed ``original, shift-ori, shift-en, de-align, hybrid-ori, hybrid-en``; metrics
        keyed as in :data:`METRIC_LABELS` (``None`` where a metric could not be computed). The
        en → source word translation rows are ``p_at_{1,5}_{nn,csls}_tgt_src`` when an en → source
        test dictionary was given (Zhou et al.'s Table 2), ``..._tgt_src_reversed`` when they
        come from the source → en test pairs reversed (ours; see :func:`evaluate`).
    coverage : dict
        Queries covered by the translation dictionaries, similarity pairs and analogy triples.
    settings : dict
        Dictionaries, permutations, seed, CSLS k, word lists used.
    timings : dict
        Seconds per method.
    details : dict
        Per method: ``most_biased_inanimate`` (the 5 inanimate nouns of largest b_w) and
        ``projections`` (occupation forms on the method's d_s, before and after; Figure 2).
    """

    lang: str
    table: dict[str, dict[str, float | None]]
    coverage: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)

    def to_dict(self):  # --json: everything but the timings, which differ from run to run
        from geobias.results import jsonable

        return jsonable({"lang": self.lang, "table": self.table, "coverage": self.coverage,
                         "settings": self.settings, "details": self.details})


def _file_name(path) -> str | None:
    """A file's name without its folder (results never carry the machine's paths)."""
    return None if path is None else os.path.basename(str(path)) or str(path)


def crosslingual_mweat(src: VectorStore, en: VectorStore, occupations: Sequence, male: Sequence[str], female: Sequence[str],
                    *, n_permutations: int, seed: int):
    """Ours, not in the paper: MWEAT with the gendered language's occupations (both forms, in
    ``src``) as targets and English male/female attribute words (in ``en``) as attributes, in
    the shared space. The paper's Table 1 MWEAT is monolingual (:func:`monolingual_mweat`).

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
    Zhou et al. (2019), eq. 1 (the statistic; the cross-lingual attribute sets are ours).
    """
    from geobias.metrics import mweat

    occ = [(o[0], o[1], o[2]) for o in occupations]
    merged = merged_store([
        ("", src, [w for o in occ for w in (o[0], o[1])]),
        ("en:", en, list(male) + list(female)),
    ])
    return mweat(merged, WordQuery.two_form(occ, [f"en:{w}" for w in male], [f"en:{w}" for w in female]),
                 permutations=n_permutations, seed=seed, oov="ignore")


def monolingual_mweat(src: VectorStore, occupations: Sequence, male: Sequence[str], female: Sequence[str],
                      *, n_permutations: int, seed: int):
    """Zhou et al. Table 1 MWEAT: the language's own occupation forms against the language's
    own male/female attribute words (unchanged by a rotation, hence by De-Align).

    Parameters
    ----------
    src : VectorStore
    occupations : sequence of (feminine, masculine, english)
        X = masculine forms, Y = feminine forms.
    male, female : sequence of str
        Attribute words A and B of the same language.
    n_permutations, seed : permutation test settings.

    Returns
    -------
    MweatResult
        With ``oov="ignore"``: out-of-vocabulary words listed in ``missing``.

    References
    ----------
    Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019), eq. 1, §4.2 and Table 1.
    """
    from geobias.metrics import mweat

    occ = [(o[0], o[1], o[2]) for o in occupations]
    return mweat(src, WordQuery.two_form(occ, list(male), list(female)), permutations=n_permutations, seed=seed, oov="ignore")


def inanimate_bias(src: VectorStore, nouns: Sequence[str], male: Sequence[str], female: Sequence[str],
                   *, top: int = 5) -> tuple[float, float, list[tuple[str, float]], int]:
    """b_w = |s(w, A, B)| of the inanimate nouns (Zhou et al. 2019 §4.2), with the language's
    own attribute words.

    Returns
    -------
    mean : float
    max : float
    most_biased : list of (word, b_w)
        The ``top`` largest, descending.
    n : int
        Nouns in vocabulary.

    Raises
    ------
    InputError
        No noun or no attribute word in vocabulary.
    """
    from geobias.metrics.weat import association_scores

    words = [w for w in dict.fromkeys(nouns) if w in src]
    a = [w for w in male if w in src]
    b = [w for w in female if w in src]
    if not words or not a or not b:
        raise InputError("no inanimate noun or attribute word is in the vocabulary")
    b_w = np.abs(association_scores(src.lookup(words, unit=True).vectors.astype(np.float64),
                                    src.lookup(a, unit=True).vectors.astype(np.float64),
                                    src.lookup(b, unit=True).vectors.astype(np.float64)))
    order = np.argsort(-b_w, kind="stable")[:top]
    return float(b_w.mean()), float(b_w.max()), [(words[i], float(b_w[i])) for i in order], len(words)


@dataclass(frozen=True)
class _MethodInputs:
    """What every method's row of :func:`evaluate` reads (fixed before the first method runs)."""

    src: VectorStore
    en: VectorStore
    dictionary: Dictionary
    test_dictionary: Dictionary
    test_en: Dictionary
    en_tag: str
    lex: GenderLexicon
    en_lex: GenderLexicon
    grammatical: object
    neutralize: str
    shift_adjectives: bool
    occupations: list
    occ_used: list
    male: list
    female: list
    en_male: list
    en_female: list
    inanimate: list
    adjectives: list
    sim_pairs: list | None
    n_permutations: int
    seed: int
    csls_k: int
    recover: object
    shared: dict


@dataclass(frozen=True)
class _MethodSpace:
    """One method's two spaces, its direction and counts, and the aligned original space so far."""

    s_out: VectorStore
    e_out: VectorStore
    direction: np.ndarray | None
    n_neutral: int | None
    n_shifted: int | None
    base_aligned: VectorStore | None


def _method_space(key: str, t: _MethodInputs, base_aligned: VectorStore | None) -> _MethodSpace:
    """Apply the method ``key`` (``"original"``: the Procrustes alignment alone) to both spaces."""
    direction = n_neutral = n_shifted = None
    if key == "original":
        _, s_out = shared_procrustes(t.src, t.en, t.dictionary, shared=t.shared)
        return _MethodSpace(s_out, t.en, None, None, None, s_out)
    cls = get_method(key)
    est = cls(lexicon=t.lex, en_lexicon=t.en_lex, grammatical=t.grammatical, neutralize=t.neutralize,
              shift_adjectives=t.shift_adjectives)
    s_out, e_out = est.fit_transform_pair(t.src, en=t.en, dictionary=t.dictionary, shared=t.shared)
    direction, n_neutral = est.direction_, est.report_.n_neutralized  # None without a shift
    n_shifted = est.report_.n_pairs_shifted if direction is not None else None
    if base_aligned is None and not cls.changes_english:  # it aligned to the unchanged English
        base_aligned = shared_procrustes(t.src, t.en, t.dictionary, shared=t.shared)[1]
    return _MethodSpace(s_out, e_out, direction, n_neutral, n_shifted, base_aligned)


def _method_row(key: str, m: _MethodSpace, t: _MethodInputs, coverage: dict) -> tuple[dict, dict]:
    """One method's row of the table and its details; ``coverage`` is updated in place (the same
    for every method)."""
    s_out, e_out = m.s_out, m.e_out
    row: dict[str, float | None] = {}
    mw = monolingual_mweat(s_out, t.occupations, t.male, t.female, n_permutations=t.n_permutations, seed=t.seed)
    row["mweat_statistic"] = float(mw.statistic)
    row["mweat_p_value"] = float(mw.p_value)
    row["mweat_difference"] = mw.difference
    row["mweat_difference_p_value"] = mw.difference_p_value
    row["mweat_effect_size"] = mw.effect_size
    cx = crosslingual_mweat(s_out, e_out, t.occupations, t.en_male, t.en_female, n_permutations=t.n_permutations,
                            seed=t.seed)
    row["mweat_crosslingual"] = float(cx.statistic)
    row["mweat_crosslingual_p_value"] = float(cx.p_value)
    b_mean, b_max, top, n_in = inanimate_bias(s_out, t.inanimate, t.male, t.female)
    row["inanimate_bias_mean"], row["inanimate_bias_max"] = b_mean, b_max
    row["n_neutralized"] = m.n_neutral
    row["n_pairs_shifted"] = m.n_shifted
    if t.recover is not None:
        row.update(t.recover.row(key, s_out, t.seed))
    det: dict = {"most_biased_inanimate": top}
    if m.direction is not None and m.base_aligned is not None and t.occ_used:
        d = np.asarray(m.direction, dtype=np.float64)
        base = m.base_aligned
        det["projections"] = {
            "words": t.occ_used,
            "before": [[float(base[f].astype(np.float64) @ d), float(base[w].astype(np.float64) @ d)]
                       for f, w, _ in t.occ_used],
            "after": [[float(s_out[f].astype(np.float64) @ d), float(s_out[w].astype(np.float64) @ d)]
                      for f, w, _ in t.occ_used],
        }
    coverage["inanimate_nouns"] = {"in_vocabulary": n_in, "listed": len(t.inanimate)}
    if t.sim_pairs is not None:
        sim = word_similarity(s_out, t.sim_pairs)
        row.update(similarity_pearson=sim.pearson, similarity_spearman=sim.spearman,
                   similarity_coverage=sim.coverage)
        coverage["similarity"] = {"covered": sim.n_covered, "pairs": sim.n_pairs}
    else:
        row.update(similarity_pearson=None, similarity_spearman=None, similarity_coverage=None)
    row.update(_translation_row(s_out, e_out, t, coverage))
    an = word_pair_translation(s_out, e_out, t.occupations, t.adjectives)
    row.update(mrr_feminine=an.mrr_feminine, mrr_masculine=an.mrr_masculine,
               mrr_difference=an.mrr_difference, asd=an.asd, n_word_pair_queries=int(an.n_queries))
    coverage["analogy"] = {"occupations": an.n_words, "adjectives": [list(a) for a in an.adjectives],
                           "queries_per_gender": an.n_queries, "missing": an.missing}
    coverage["mweat"] = {"n_pairs": mw.n_pairs, "missing": list(mw.missing), "n_a": mw.n_a, "n_b": mw.n_b}
    coverage["mweat_crosslingual"] = {"n_pairs": cx.n_pairs, "missing": list(cx.missing)}
    return row, det


def _translation_row(s_out: VectorStore, e_out: VectorStore, t: _MethodInputs, coverage: dict) -> dict:
    """P@1 and P@5 both ways, by nearest neighbour and by CSLS (one CSLS index, reversed for the way back)."""
    row: dict[str, float | int | None] = {}
    fwd = CslsIndex(s_out.unit_vectors, e_out.unit_vectors, k=t.csls_k)
    bwd = fwd.reverse()  # shares r and the neighbour lists with fwd
    for tag, a, b, dico, index in (("src_tgt", s_out, e_out, t.test_dictionary, fwd),
                                   (t.en_tag, e_out, s_out, t.test_en, bwd)):
        for how in ("nn", "csls"):
            r = translation_accuracy(a, b, dico, method=how, ks=(1, 5), csls_k=t.csls_k, index=index)
            row[f"p_at_1_{how}_{tag}"] = r.precision["p_at_1"]
            row[f"p_at_5_{how}_{tag}"] = r.precision["p_at_5"]
            coverage[f"translation_{tag}"] = {"queries": r.n_queries, "source_words": r.n_source_words,
                                              "coverage": r.coverage}
        row[f"n_translation_queries_{tag}"] = int(r.n_queries)
    return row


def evaluate(
    src: VectorStore,
    en: VectorStore,
    dictionary: Dictionary,
    test_dictionary: Dictionary,
    *,
    test_dictionary_en: Dictionary | None = None,
    similarity: str | os.PathLike | None = None,
    methods: Sequence[str] = tuple(METHOD_KEYS),
    n_permutations: int = 10_000,
    seed: int = 0,
    csls_k: int = 10,
    lexicon: GenderLexicon | None = None,
    en_lexicon: GenderLexicon | None = None,
    attributes: tuple[Sequence[str], Sequence[str]] | None = None,
    adjectives: Sequence | None = None,
    neutralize: str = "inanimate",
    shift_adjectives: bool = False,
    recoverability: bool = False,
    recovery_options: dict | None = None,
    progress: ProgressArg = None,
) -> EvaluationResult:
    """Evaluate the original bilingual space and every mitigation method (Zhou et al. Tables 1–2).

    Parameters
    ----------
    src : VectorStore
        The gendered language (unaligned original vectors).
    en : VectorStore
        English.
    dictionary : Dictionary
        Source → English training pairs (Procrustes).
    test_dictionary : Dictionary
        Source → English test pairs (source → en word translation; MUSE's ``fr-en.5000-6500.txt``).
    test_dictionary_en : Dictionary, optional
        English → source test pairs (en → source word translation; MUSE's ``en-fr.5000-6500.txt``,
        as Zhou et al.'s Table 2 EN→FR). Without it the en → source rows come from
        ``test_dictionary`` reversed and are keyed ``*_tgt_src_reversed`` (ours): they read lower,
        since only the source words of that file (MUSE: frequency ranks 5000–6500) count as correct
        answers (fr-spacy-md ↔ en-w2v-gnews, Original, CSLS P@1: 47.5 reversed, 80.4 on en-fr).
    similarity : path, optional
        Word-similarity file of the gendered language (``w1 w2 score``).
    methods : sequence of str
        Keys of :data:`METHOD_KEYS` (``original`` is the aligned, unmitigated space).
    n_permutations, seed : MWEAT permutation test settings.
    csls_k : int, default 10
    lexicon, en_lexicon : GenderLexicon, optional
        Default: the project's lists.
    attributes : (male, female), optional
        Attribute words of the gendered language for the monolingual MWEAT (default: ours;
        with ``lexicon`` given: its definitional pairs).
    adjectives : sequence of (feminine, masculine, english), optional
        Word-pair translation seeds (default: our adjective list); the first
        :data:`~geobias.evaluation.analogy.N_ADJECTIVES` usable ones are used.
    neutralize : {"inanimate", "all-other"}, default "inanimate"
        Passed to every method (see :class:`~geobias.mitigation.BilingualMitigation`; De-Align,
        which does not shift, neutralises nothing).
    shift_adjectives : bool, default False
        Also move the two-form adjective pairs by eq. 4 (ours; see
        :class:`~geobias.mitigation.BilingualMitigation`). Off by default: the adjectives are the
        word-pair translation seeds S_i, so moving them edits Table 2's own queries.
    recoverability : bool, default False
        Add Gonen & Goldberg's (2019) recovery tests as rows (:data:`~geobias.evaluation.recovery.RECOVERY_METRICS`):
        can the original gender of the most biased words (by their projection on d_s in the
        original space) be recovered from each method's space? Not in Zhou et al.'s tables.
    recovery_options : dict, optional
        ``n_biased``, ``n_classify``, ``n_train``, ``k`` of the recovery tests (default the
        paper's 500, 2,500, 1,000, 100).
    progress : Progress, bool or None, optional
        Shows which method is being evaluated (a stage whose text changes; see
        :data:`geobias._progress.ProgressArg`).

    Returns
    -------
    EvaluationResult

    Raises
    ------
    InputError
        ``src`` is English; unknown method key; dimension mismatch; a dictionary with no pair
        in vocabulary or in the wrong language order; a similarity file that is malformed or has fewer than 3 pairs in
        vocabulary; word lists entirely out of vocabulary. Checked before the first method runs
        where the check does not depend on the method.

    References
    ----------
    Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019), §4.2–4.3 and Tables 1–2; Conneau et
    al. (2018) (P@k, CSLS k = 10).

    Notes
    -----
    Table 1 MWEAT is monolingual: the language's occupation forms against the language's own
    attribute words, per method (a rotation, hence De-Align, leaves it unchanged). Rows marked
    "ours" are not in the paper: the difference statistic Σ_X s − Σ_Y s with its p-value and
    effect size, and a cross-lingual MWEAT (English attribute words in the shared space).
    b_w = |s(w)| of the inanimate nouns (§4.2) uses the language's own attribute words. Word
    similarity is computed in the gendered language. Every store is unit-normalised first.
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
    en_male, en_female = wordlists.attribute_words("en") if en_lexicon is None else (
        [m for _, m in en_lex.definitional_pairs], [f for f, _ in en_lex.definitional_pairs])
    if attributes is not None:
        male, female = list(attributes[0]), list(attributes[1])
    elif lexicon is None:
        male, female = wordlists.attribute_words(lang)
    else:
        male, female = [m for _, m in lex.definitional_pairs], [f for f, _ in lex.definitional_pairs]
    if adjectives is None:
        adjectives = [tuple(a) for a in wordlists.adjectives(lang)]
    sim_pairs = read_similarity_file(similarity) if similarity is not None else None
    src = src.normalized()
    en = en.normalized()
    # fail before the first (slow) method on inputs whose coverage no method changes
    if src.dim != en.dim:
        raise InputError(f"dimensions differ: {lang} {src.dim}, en {en.dim}")
    resolve(dictionary, src, en)
    resolve(test_dictionary, src, en)
    if test_dictionary_en is not None:
        resolve(test_dictionary_en, en, src)
    if sim_pairs is not None:
        try:
            word_similarity(src, sim_pairs)
        except InputError as exc:
            raise InputError(f"{similarity}: {exc}") from None
    adj = select_adjectives(adjectives, src, en, N_ADJECTIVES)
    inanimate = lex.inanimate_nouns()
    if test_dictionary_en is None:
        test_en, en_tag = test_dictionary.inverted(), "tgt_src_reversed"
        test_en_setting = f"{_file_name(test_dictionary.source)} reversed (ours)"
    else:
        test_en, en_tag, test_en_setting = test_dictionary_en, "tgt_src", _file_name(test_dictionary_en.source)
    # d_g is fitted once on the unaligned store and carried into each aligned space
    from geobias.mitigation._directions import grammatical_direction

    # (its cross-validated accuracy is not part of the tables: not computed)
    grammatical = grammatical_direction(src, lex.masculine_nouns, lex.feminine_nouns, cross_validate=False)
    table: dict[str, dict[str, float | None]] = {}
    timings: dict[str, float] = {}
    coverage: dict = {}
    details: dict = {}
    base_aligned: VectorStore | None = None
    occ_used = [(f, m, e) for f, m, e in occupations if f in src and m in src and f != m]
    # the Procrustes fits and the English hard debias that several methods share are computed once
    shared: dict = {}
    recover = None
    if recoverability:
        from geobias.evaluation.recovery import RecoveryRows

        recover = RecoveryRows(src, lang, recovery_options)
    inputs = _MethodInputs(src, en, dictionary, test_dictionary, test_en, en_tag, lex, en_lex, grammatical, neutralize,
                           shift_adjectives, occupations, occ_used, male, female, en_male, en_female, inanimate,
                           adj, sim_pairs, n_permutations, seed, csls_k, recover, shared)
    with reporter(progress).status('evaluating') as update:
        for key in methods:
            t0 = time.perf_counter()
            update(f"evaluating {METHOD_KEYS[key]}")
            space = _method_space(key, inputs, base_aligned)
            base_aligned = space.base_aligned
            table[key], details[key] = _method_row(key, space, inputs, coverage)
            timings[key] = time.perf_counter() - t0
    settings = {"dictionary": _file_name(dictionary.source), "test_dictionary": _file_name(test_dictionary.source),
                "test_dictionary_en": test_en_setting,
                "similarity": _file_name(similarity), "n_permutations": n_permutations,
                "seed": seed, "csls_k": csls_k, "neutralize": neutralize, "shift_adjectives": shift_adjectives,
                "mweat_attributes": f"{lang} male/female attribute words (monolingual, Table 1)",
                "mweat_crosslingual_attributes": "English male/female attribute words (ours)"}
    return EvaluationResult(lang, table, coverage, settings, timings, details)
