"""Gonen & Goldberg's recovery tests for one language: the gender direction, the words left out
and the professions chosen as the ``recoverability`` command chooses them, so that the command,
``evaluate`` and the erasure table report the same quantity.

For a language with grammatical gender the bias of a word is its projection on d_s (the
semantic direction with d_g projected out), the gender-definitional words (pronouns, kinship and
person nouns, attribute words) are left out, and the grammatically gendered inanimate nouns are
left out and reported separately — their "bias" is agreement, and a test that recovered it would
recover grammar, not a hidden semantic bias. For English the direction is d_PCA.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from geobias.store import VectorStore

#: The recovery rows that ``evaluate`` and the erasure table add with ``recoverability=True``.
RECOVERY_METRICS = {
    "recover_cluster_accuracy": "Recoverable: k-means accuracy (G&G)",
    "recover_classifier_accuracy": "Recoverable: SVM accuracy (G&G)",
    "recover_neighbour_r": "Recoverable: r(bias, male share of k-NN)",
    "recover_profession_r": "Recoverable: r on professions",
}


@dataclass(frozen=True)
class RecoverySetup:
    """What the tests need for one language and store: the direction (masculine positive), its
    name, and the word lists."""

    direction: np.ndarray
    direction_name: str
    exclude: list[str]
    inanimate: list[str]
    professions: list[str]


def recovery_setup(store: VectorStore, lang: str, *, seed: int = 0) -> RecoverySetup:
    """The direction and word lists of the recovery tests for ``lang`` on ``store``.

    d_s for a language with grammatical gender (from :func:`geobias.directions.gender_directions`),
    d_PCA otherwise; excluded words, inanimate nouns and professions from the project's lists.

    Raises
    ------
    InputError
        As :func:`~geobias.directions.gender_directions` (too few definitional pairs or nouns).
    """
    from geobias import wordlists
    from geobias.directions import gender_directions
    from geobias.mitigation.lexicon import GenderLexicon

    dirs = gender_directions(store, lang, random_state=seed, oov="ignore")
    direction, name = (dirs.d_s, "d_s") if dirs.d_g is not None else (dirs.d_pca, "d_PCA")
    lex = GenderLexicon.for_language(lang)
    male, female = wordlists.attribute_words(lang)
    exclude = [*lex.gender_specific, *(w for pair in lex.definitional_pairs for w in pair), *lex.person_nouns,
               *male, *female]
    professions = [w for o in wordlists.occupations(lang) for w in dict.fromkeys((o.masculine, o.feminine))]
    return RecoverySetup(np.asarray(direction, dtype=np.float64), name, exclude, list(lex.inanimate_nouns()),
                         professions)


def recoverability_for(store: VectorStore, debiased: Mapping[str, VectorStore], lang: str, *,
                       setup: RecoverySetup | None = None, include_original: bool = True, n_biased: int = 500,
                       n_classify: int = 2500, n_train: int = 1000, k: int = 100, seed: int = 0):
    """:func:`geobias.metrics.recoverability.recoverability` with the language's direction and lists.

    Parameters
    ----------
    store : VectorStore
        The original space (the bias of a word is measured here).
    debiased : mapping of str to VectorStore
        Debiased spaces by name; a rotation of ``store`` (an aligned space) changes none of the
        tests, so an aligned, debiased space can be given as is.
    lang : str
    setup : RecoverySetup, optional
        Computed once by :func:`recovery_setup` and reused (default: computed here).
    include_original : bool, default True
        Also test the original space (the first row).
    n_biased, n_classify, n_train, k, seed
        As in :func:`~geobias.metrics.recoverability.recoverability` (the paper's 500, 2,500,
        1,000 and 100 by default).

    Returns
    -------
    RecoverabilityResult

    Raises
    ------
    InputError
        As :func:`recovery_setup` and :func:`~geobias.metrics.recoverability.recoverability` (too
        few eligible words for the sizes asked).
    """
    from geobias.metrics.recoverability import recoverability

    s = setup or recovery_setup(store, lang, seed=seed)
    return recoverability(store, dict(debiased), s.direction, direction_name=s.direction_name, exclude=s.exclude,
                          inanimate=s.inanimate, professions=s.professions, n_biased=n_biased,
                          n_classify=n_classify, n_train=n_train, k=k, seed=seed, include_original=include_original)


class RecoveryRows:
    """The recovery rows of a table of methods (``evaluate``, the erasure tables): the direction
    and word lists once, the original space's scores once per seed, each method's space per call.

    Examples
    --------
    >>> rows = RecoveryRows(store, "fr")                         # doctest: +SKIP
    >>> rows.row("original", store, seed=0)["recover_cluster_accuracy"]  # doctest: +SKIP
    """

    def __init__(self, store: VectorStore, lang: str, options: dict | None = None):
        self.store, self.lang, self.options = store, lang, dict(options or {})
        self.setup = recovery_setup(store, lang)
        self._original: dict[int, object] = {}

    def row(self, name: str, space: VectorStore, seed: int) -> dict[str, float | None]:
        """:data:`RECOVERY_METRICS` of ``space`` (method ``name``; ``"original"``: the store's own)."""
        if seed not in self._original:
            self._original[seed] = recoverability_for(self.store, {}, self.lang, setup=self.setup, seed=seed,
                                                      **self.options).rows[0]
        if name == "original":
            return recovery_row(self._original[seed])
        return recovery_row(recoverability_for(self.store, {name: space}, self.lang, setup=self.setup, seed=seed,
                                               include_original=False, **self.options).rows[0])


def recovery_row(scores) -> dict[str, float | None]:
    """The :data:`RECOVERY_METRICS` of one space's :class:`~geobias.metrics.recoverability.RecoveryScores`."""
    return {"recover_cluster_accuracy": scores.cluster_accuracy,
            "recover_classifier_accuracy": scores.classifier_accuracy,
            "recover_neighbour_r": scores.neighbour_correlation,
            "recover_profession_r": scores.profession_correlation}


__all__ = ["RECOVERY_METRICS", "RecoveryRows", "RecoverySetup", "recoverability_for", "recovery_row", "recovery_setup"]
