"""Gender directions: semantic (PCA), grammatical (LDA) and their orthogonalisation.

>>> d = gender_directions(store, "fr", oov="ignore")      # doctest: +SKIP
>>> d.lda_cv_accuracy, d.cos_pca_grammatical              # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geobias.directions.grammatical import GrammaticalDirection, orthogonalize
from geobias.directions.semantic import SemanticDirection
from geobias.directions.subspace import GenderSubspace
from geobias.errors import InputError
from geobias.languages import get_language
from geobias.results import Result
from geobias.store import VectorStore

__all__ = [
    "GenderDirections",
    "GenderSubspace",
    "GrammaticalDirection",
    "SemanticDirection",
    "gender_directions",
    "orthogonalize",
]


@dataclass(frozen=True)
class GenderDirections(Result):
    """The three gender directions of one store and their diagnostics.

    Attributes
    ----------
    lang : str or None
    d_pca : ndarray of shape (dim,), float32
        Semantic direction (first PC of pair-centred definitional pairs), masculine positive.
    d_g : ndarray of shape (dim,), float32, or None
        Grammatical direction (LDA), masculine positive; ``None`` when no noun lists were
        given for a language without grammatical gender.
    d_s : ndarray of shape (dim,), float32
        ``normalise(d_PCA − <d_PCA, d_g> d_g)`` (equal to ``d_pca`` when ``d_g`` is None).
    explained_variance_ratio : list of float
        Of every PCA component kept (at most ``n_components``).
    lda_cv_accuracy : float or None
        Mean stratified k-fold CV accuracy of the LDA.
    lda_cv_fold_accuracy : list of float
    n_nouns : dict {"masculine": int, "feminine": int}
        Nouns used by the LDA (zero when there is none).
    n_pairs : int
        Definitional pairs used.
    cos_pca_grammatical : float or None
        ``cos(d_PCA, d_g)`` (Zhou et al. report 0.389 for Spanish).
    cos_semantic_pca : float
        ``cos(d_s, d_PCA)``.
    missing : dict of list of str
        Out-of-vocabulary words: ``{"definitional_pairs", "nouns"}``; ``"ambiguous_nouns"``
        lists nouns given under both genders (excluded).
    lda_solver : str or None
        The LDA solver and shrinkage used, and why (:attr:`GrammaticalDirection.solver_`).
    lda_baselines : dict or None
        The LDA accuracy's baselines on the same nouns and folds (chance: ``"majority"``;
        spelling: ``"orthographic"``), see :attr:`GrammaticalDirection.baselines_`.
    classes : (str, str)
        The two noun classes ``d_g`` separates, the first on its positive side: masculine and
        feminine, or for Dutch common (de-words) and neuter (het-words). ``n_nouns`` is keyed by
        them.
    note : str or None
        Why ``d_g`` was not fitted for a language with grammatical gender (no masculine/feminine
        noun lists: Dutch's common/neuter system, Arabic without a gender-tagged dictionary).
    """

    lang: str | None
    d_pca: np.ndarray
    d_g: np.ndarray | None
    d_s: np.ndarray
    explained_variance_ratio: list[float]
    lda_cv_accuracy: float | None
    lda_cv_fold_accuracy: list[float]
    n_nouns: dict[str, int]
    n_pairs: int
    cos_pca_grammatical: float | None
    cos_semantic_pca: float
    missing: dict[str, list[str]]
    lda_solver: str | None = None
    note: str | None = None
    lda_baselines: dict | None = None
    classes: tuple[str, str] = ("masculine", "feminine")


def gender_directions(
    store: VectorStore,
    lang: str | None = None,
    *,
    pairs: Sequence[Sequence[str]] | None = None,
    masculine: Sequence[str] | None = None,
    feminine: Sequence[str] | None = None,
    n_components: int = 10,
    cv: int = 5,
    random_state: int = 0,
    max_per_class: int | None = None,
    oov: str = "raise",
    shrinkage: float | str | None = "if-needed",
) -> GenderDirections:
    """Fit ``d_PCA``, ``d_g`` and ``d_s`` on a store (Zhou et al. 2019, §3).

    Parameters
    ----------
    store : VectorStore
    lang : str, optional
        Language whose built-in word lists (:mod:`geobias.wordlists`) are used for whatever
        of ``pairs`` / ``masculine`` / ``feminine`` is not given. Defaults to ``store.lang``.
    pairs : sequence of (female, male), optional
    masculine, feminine : sequence of str, optional
        Grammatically gendered nouns for the LDA (the positive and the negative class). For a
        language without grammatical gender and no lists given, ``d_g`` is ``None``; for Dutch
        (common/neuter) the built-in lists are its common nouns (positive) and neuter nouns.
    n_components, cv, random_state, max_per_class, shrinkage
        See :class:`SemanticDirection` and :class:`GrammaticalDirection` (``shrinkage``
        ``"if-needed"``: plain LDA unless a CV training fold has < 10 nouns per dimension).
    oov : {"raise", "ignore"}, default "raise"

    Returns
    -------
    GenderDirections

    Raises
    ------
    OutOfVocabularyError
        ``oov="raise"`` and a list word is missing.
    InputError
        No language to take lists from, no usable pair, too few nouns for ``cv`` folds.

    References
    ----------
    Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019), "Examining Gender Bias in Languages
    with Grammatical Gender", EMNLP-IJCNLP, §3: d_PCA (PCA on pair-centred definitional pairs), d_g (LDA on
    gendered nouns), d_s = normalise(d_PCA − <d_PCA, d_g> d_g).
    """
    lang = lang or store.lang
    language = get_language(lang) if lang is not None else None
    note = None
    want_nouns = masculine is None or feminine is None
    classes = ("masculine", "feminine")
    need_lists = pairs is None or (want_nouns and language is not None and language.grammatical_gender)
    if need_lists and language is None:
        raise InputError("pass lang (or word lists): the store has no language to take lists from")
    if need_lists:
        from geobias import wordlists

        if pairs is None:
            pairs = wordlists.definitional_pairs(language.code)
        if (masculine is None or feminine is None) and language.grammatical_gender:
            available = wordlists.available_lists(language.code)
            if "gendered_nouns" in available:
                m_list, f_list = wordlists.gendered_nouns(language.code)
                masculine = m_list if masculine is None else masculine
                feminine = f_list if feminine is None else feminine
            elif set(language.genders) == {"common", "neuter"} and {"common_nouns", "neuter_nouns"} <= available:
                # Dutch: the grammatical direction separates de-words (common) from het-words (neuter)
                classes = ("common", "neuter")
                masculine = wordlists.nouns_of_gender(language.code, "common") if masculine is None else masculine
                feminine = wordlists.nouns_of_gender(language.code, "neuter") if feminine is None else feminine
            else:  # no masculine/feminine noun lists: the semantic direction only, and why
                genders = ", ".join(getattr(language, "genders", ())) or "none listed"
                note = (f"{language.name} has no masculine/feminine noun lists (its genders: {genders}): d_g is not "
                        "fitted and d_s = d_PCA; pass masculine and feminine nouns to fit it")

    sem = SemanticDirection(n_components, oov=oov).fit(store, pairs)
    d_pca = sem.direction_
    missing: dict[str, list[str]] = {"definitional_pairs": list(sem.missing_), "nouns": []}
    if masculine is not None and feminine is not None:
        gram = GrammaticalDirection(
            cv=cv, random_state=random_state, max_per_class=max_per_class, oov=oov, shrinkage=shrinkage
        ).fit(store, masculine, feminine)
        solver = gram.solver_
        d_g = gram.direction_
        d_s = orthogonalize(d_pca, d_g)
        cos_pg = float(np.dot(d_pca.astype(np.float64), d_g.astype(np.float64)))
        lda_acc, folds, baselines = gram.cv_accuracy_, list(gram.cv_fold_accuracy_), gram.baselines_
        n_nouns = {classes[0]: gram.n_nouns_["masculine"], classes[1]: gram.n_nouns_["feminine"]}
        missing["nouns"] = list(gram.missing_)
        missing["ambiguous_nouns"] = list(gram.ambiguous_)
    else:
        d_g, d_s, cos_pg, lda_acc, folds, solver, baselines = None, d_pca.copy(), None, None, [], None, None
        n_nouns = {classes[0]: 0, classes[1]: 0}
    return GenderDirections(
        lang=language.code if language is not None else lang,
        d_pca=d_pca,
        d_g=d_g,
        d_s=d_s,
        explained_variance_ratio=[float(v) for v in sem.explained_variance_ratio_],
        lda_cv_accuracy=lda_acc,
        lda_cv_fold_accuracy=[float(v) for v in folds],
        n_nouns=dict(n_nouns),
        n_pairs=len(sem.pairs_),
        cos_pca_grammatical=cos_pg,
        cos_semantic_pca=float(np.dot(d_s.astype(np.float64), d_pca.astype(np.float64))),
        missing=missing,
        lda_solver=solver,
        note=note,
        lda_baselines=baselines,
        classes=classes,
    )
