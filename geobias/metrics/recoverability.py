"""Does a debiased space still hide its bias? The recovery tests of Gonen & Goldberg (2019)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geobias._numeric import legacy_seed
from geobias.errors import InputError
from geobias.results import Result
from geobias.store import VectorStore

__all__ = ["RecoverabilityResult", "RecoveryScores", "paper_vocabulary", "recoverability", "recovery_scores"]


@dataclass(frozen=True)
class RecoveryScores(Result):
    """The four recovery tests on one space (the original, or a debiased one).

    Attributes
    ----------
    space : str
        ``"original"`` or the mitigation method's name.
    cluster_accuracy : float
        k-means (k = 2) on the ``2 n_biased`` most biased words' vectors in this space: the share
        of words whose cluster matches their original bias side (best of the two cluster-to-side
        assignments; 0.5 = no gender left, 1.0 = fully recoverable).
    classifier_accuracy : float
        An RBF-kernel SVM (scikit-learn ``SVC()``, C = 1, gamma = "scale") trained in this space on
        ``n_train`` words drawn at random (``seed``) from the ``2 n_classify`` most biased, accuracy
        on the rest.
    neighbour_correlation : float
        Pearson r, over the eligible words, between the original bias-by-projection and the share
        of male-biased words (original projection > 0) among the ``k`` nearest neighbours (cosine,
        the word itself excluded) in this space.
    profession_correlation : float or None
        The same over the professions given (``None`` with fewer than 3 in the vocabulary).
    classifier_spread : dict or None
        The SVM accuracy over other draws of the training words: ``{"seeds": [...], "accuracy":
        [...], "mean", "sd", "min", "max"}`` (``None`` when no other seeds were asked for).
    """

    space: str
    cluster_accuracy: float
    classifier_accuracy: float
    neighbour_correlation: float
    profession_correlation: float | None
    classifier_spread: dict | None = None


@dataclass(frozen=True)
class RecoverabilityResult(Result):
    """The recovery tests before and after debiasing.

    Attributes
    ----------
    rows : list of RecoveryScores
        The original space first, then each debiased one.
    direction : str
        Which gender direction gave the original bias-by-projection (``he - she`` by the paper's
        protocol, ``d_PCA`` by ours, ``d_s`` for a language with grammatical gender).
    n_eligible : int
        Words the tests drew from (in both spaces, not excluded).
    n_biased, n_classify, n_train, k : int
        The sizes used (after capping to what the vocabulary allows).
    n_professions : int
    excluded : int
        Words left out as gender-definitional (pronouns, kinship and person words, attribute words).
    inanimate_excluded : int
        Grammatically gendered inanimate nouns left out (their gender is grammar, not bias).
    inanimate_among_biased : float or None
        Had they been eligible: the share of inanimate nouns among the ``2 n_biased`` most biased
        words by the same projection (``None`` when none were given).
    seed : int
        The draw of the SVM's training words (and k-means' starts when ``kmeans_seed`` is None).
    protocol : str
        ``"paper"`` (Gonen & Goldberg's inputs and settings) or ``"geobias"`` (ours).
    svm_gamma : str
        The SVM's ``gamma`` (``"auto"``: 1 / dim, scikit-learn's default in 2019; ``"scale"``:
        today's default).
    balanced_split : bool
        Whether the training words were drawn ``n_train / 2`` per side (the paper) or at random
        from both sides together.
    kmeans_seed : int
        k-means' ``random_state`` (the paper's 1).
    split_draw : str
        How the SVM's training words were drawn: ``"numpy"`` (``numpy.random.default_rng``
        permutations) or ``"notebook"`` (the authors' notebook: Python's ``random`` seeded, then
        ``shuffle`` of the female-biased list and of the male-biased list).
    split_seed : int
        The seed of that draw (the notebook's ``random.seed(10)`` by the paper's protocol).
    """

    rows: list[RecoveryScores]
    direction: str
    n_eligible: int
    n_biased: int
    n_classify: int
    n_train: int
    k: int
    n_professions: int
    excluded: int
    inanimate_excluded: int
    inanimate_among_biased: float | None
    seed: int
    protocol: str = "geobias"
    svm_gamma: str = "scale"
    balanced_split: bool = False
    kmeans_seed: int = 0
    split_draw: str = "numpy"
    split_seed: int = 0

    def __rich__(self):
        """The CLI's table: one row per space."""
        from rich.console import Group
        from rich.table import Table

        how = "the paper's protocol" if self.protocol == "paper" else f"geobias's protocol, {self.direction}"
        t = Table(title=f"Recoverability (Gonen & Goldberg 2019; {how}): can the original gender of "
                        "the most biased words be recovered?", title_justify="left")
        for c in ("space", f"k-means ({2 * self.n_biased} words)", f"SVM (train {self.n_train})",
                  f"r(bias, male share of {self.k}-NN)", "r on professions"):
            t.add_column(c, justify="left" if c == "space" else "right")
        for r in self.rows:
            prof = "—" if r.profession_correlation is None else f"{r.profession_correlation:.3f}"
            t.add_row(r.space, f"{r.cluster_accuracy:.3f}", f"{r.classifier_accuracy:.3f}",
                      f"{r.neighbour_correlation:.3f}", prof)
        note = (f"{self.n_eligible:,} eligible words; {self.excluded} gender-definitional and "
                f"{self.inanimate_excluded} inanimate nouns left out; bias by {self.direction}")
        spreads = [(r.space, r.classifier_spread) for r in self.rows if r.classifier_spread]
        if spreads:
            note += "; SVM over " + ", ".join(
                f"{len(sp['seeds'])} draws in {name}: {sp['min']:.3f}–{sp['max']:.3f}" for name, sp in spreads)
        if self.inanimate_among_biased is not None:
            note += (f"; had they been eligible, inanimate nouns would make {100 * self.inanimate_among_biased:.0f}% "
                     "of the most biased words (their gender is grammatical)")
        return Group(t, note)


def _unit(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    n = np.linalg.norm(x, axis=1, keepdims=True)
    n[n == 0] = 1.0
    return x / n


def _male_share_of_neighbours(vectors: np.ndarray, male: np.ndarray, k: int, queries: np.ndarray,
                              chunk: int = 1024) -> np.ndarray:
    """For each row index in ``queries``: the share of ``male`` among its ``k`` nearest rows
    (cosine on the unit rows ``vectors``, the row itself excluded)."""
    out = np.empty(len(queries), dtype=np.float64)
    for start in range(0, len(queries), chunk):
        idx = queries[start:start + chunk]
        sims = vectors[idx] @ vectors.T
        sims[np.arange(len(idx)), idx] = -np.inf
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        out[start:start + len(idx)] = male[top].mean(axis=1)
    return out


def recovery_scores(
    space: np.ndarray,
    bias: np.ndarray,
    *,
    name: str,
    n_biased: int,
    n_classify: int,
    n_train: int,
    k: int,
    professions: np.ndarray,
    seed: int,
    svm_gamma: str = "auto",
    balanced_split: bool = True,
    kmeans_seed: int | None = 1,
    spread_seeds: Sequence[int] = (),
    split_draw: str = "numpy",
    split_seed: int | None = None,
) -> RecoveryScores:
    """The four tests on one space's rows (aligned with ``bias``, the original projections).

    Parameters
    ----------
    space : ndarray of shape (n, dim)
        The eligible words' vectors in the space tested (normalised here).
    bias : ndarray of shape (n,)
        Their original bias-by-projection (> 0: male).
    professions : ndarray of int
        Row indices of the professions.
    svm_gamma : {"auto", "scale"}, default "auto"
        The RBF kernel's gamma (``"auto"`` = 1 / dim: scikit-learn's default when the paper ran).
    balanced_split : bool, default True
        Draw ``n_train / 2`` training words from each side's ``n_classify`` (the paper);
        otherwise ``n_train`` from the pooled ``2 n_classify``.
    kmeans_seed : int or None, default 1
        k-means' ``random_state`` (the paper's 1); ``None``: ``seed``.
    spread_seeds : sequence of int
        Other draws of the training words; their accuracies go into ``classifier_spread``.
    split_draw : {"numpy", "notebook"}, default "numpy"
        ``"numpy"``: permutations from ``numpy.random.default_rng(seed)``. ``"notebook"``: the
        authors' notebook's draw (balanced only): ``random.Random(seed)`` shuffles the female-biased
        list (most female first), then the male-biased list (least male first), and the first
        ``n_train / 2`` of each train. Python 3's ``shuffle``; the paper ran Python 2.7, whose
        ``shuffle`` maps the same seed to another order, so the 2019 draw itself is not reproducible.
    split_seed : int, optional
        The seed of the headline draw (default ``seed``).
    """
    from scipy.stats import pearsonr
    from sklearn.cluster import KMeans

    x = _unit(space)
    order = np.argsort(bias, kind="stable")
    biased = np.concatenate([order[-n_biased:], order[:n_biased]])
    labels = bias[biased] > 0
    km_seed = seed if kmeans_seed is None else kmeans_seed
    clusters = KMeans(n_clusters=2, n_init=10, random_state=legacy_seed(km_seed)).fit_predict(x[biased])
    agree = float(np.mean((clusters == 1) == labels))
    cluster_acc = max(agree, 1.0 - agree)

    pool = np.concatenate([order[-n_classify:], order[:n_classify]])
    y = bias[pool] > 0

    def svm(split_seed: int) -> float:
        from sklearn.svm import SVC

        train = _training_rows(len(pool), n_classify, n_train, split_seed, balanced_split, split_draw)
        test = np.setdiff1d(np.arange(len(pool)), train)
        clf = SVC(gamma=svm_gamma).fit(x[pool[train]], y[train])
        return float(clf.score(x[pool[test]], y[test]))

    headline = seed if split_seed is None else split_seed
    svm_acc = svm(headline)
    spread = None
    if len(spread_seeds):
        accs = [svm_acc if s == headline else svm(s) for s in spread_seeds]
        spread = {"seeds": [int(s) for s in spread_seeds], "accuracy": accs, "mean": float(np.mean(accs)),
                  "sd": float(np.std(accs, ddof=1)) if len(accs) > 1 else 0.0, "min": min(accs), "max": max(accs)}

    male = bias > 0
    shares = _male_share_of_neighbours(x, male, k, np.arange(len(bias)))
    r_all = float(pearsonr(bias, shares).statistic)
    r_prof = None
    if len(professions) >= 3:
        r_prof = float(pearsonr(bias[professions], shares[professions]).statistic)
    return RecoveryScores(name, cluster_acc, svm_acc, r_all, r_prof, spread)


def _training_rows(n_pool: int, n_classify: int, n_train: int, seed: int, balanced: bool,
                   draw: str = "numpy") -> np.ndarray:
    """Row indices (into a pool of the ``n_classify`` most male-biased words, then the
    ``n_classify`` most female-biased, each block in ascending order of bias) of the SVM's
    training words; ``draw`` as in :func:`recovery_scores`."""
    if draw == "notebook":
        import random

        if not balanced:
            raise InputError("the notebook's draw takes n_train / 2 words from each side: it needs balanced_split")
        shuffler = random.Random(seed)
        female, male = list(range(n_classify)), list(range(n_classify))
        shuffler.shuffle(female)  # the notebook shuffles its female list first
        shuffler.shuffle(male)
        half = n_train // 2
        return np.array(male[:half] + [n_classify + i for i in female[:half]], dtype=np.int64)
    rng = np.random.default_rng(seed)
    if not balanced:
        return rng.permutation(n_pool)[:n_train]
    half = n_train // 2
    male = rng.permutation(n_classify)[:half]
    female = n_classify + rng.permutation(n_classify)[:n_train - half]
    return np.concatenate([male, female])


def paper_vocabulary(words: Sequence[str], exclude: Sequence[str] = (), *, limit: int = 50_000) -> list[str]:
    """Gonen & Goldberg's vocabulary: of the ``limit`` most frequent words (``words`` in
    frequency order), those in lower case, shorter than 20 characters, without a digit and
    without punctuation (a phrase joined by ``_`` is kept when no part has punctuation), less the
    words in ``exclude``; in the order of ``words``.

    Parameters
    ----------
    words : sequence of str
        The embedding's vocabulary, most frequent first.
    exclude : sequence of str
        Words left out (the paper: Bolukbasi et al.'s gender-specific words and the words of
        their definitional and equalise pairs), compared exactly.
    limit : int, default 50000

    Returns
    -------
    list of str

    References
    ----------
    Gonen & Goldberg (2019), §3 (the 50,000 most frequent words, lower case, shorter than 20
    characters, no digits or punctuation; gender-specific words removed).

    Examples
    --------
    >>> paper_vocabulary(["the", "New_York", "he's", "nurse", "b2b", "ice_cream", "he"], ["he"])
    ['the', 'nurse', 'ice_cream']
    """
    import string

    punct = set(string.punctuation)
    drop = set(exclude)
    out = []
    for w in words[:limit]:
        if w.lower() != w or len(w) >= 20 or any(c in "0123456789" for c in w):
            continue
        parts = w.split("_") if "_" in w else [w]
        if any(c in punct for part in parts for c in part) or w in drop:
            continue
        out.append(w)
    return out


def recoverability(
    original: VectorStore,
    debiased: dict[str, VectorStore],
    direction: np.ndarray,
    *,
    direction_name: str = "d_PCA",
    exclude: Sequence[str] = (),
    inanimate: Sequence[str] = (),
    professions: Sequence[str] = (),
    n_biased: int = 500,
    n_classify: int = 2500,
    n_train: int = 1000,
    k: int = 100,
    limit: int | None = None,
    seed: int = 0,
    include_original: bool = True,
    vocabulary: Sequence[str] | None = None,
    svm_gamma: str = "scale",
    balanced_split: bool = False,
    kmeans_seed: int | None = None,
    spread_seeds: Sequence[int] = (),
    protocol: str = "geobias",
    split_draw: str = "numpy",
    split_seed: int | None = None,
) -> RecoverabilityResult:
    """Gonen & Goldberg's recovery tests of gender bias, before and after debiasing.

    The original bias of a word is its projection on the gender direction in the original space,
    ``b(w) = cos(w, d)``. The tests then ask how much of ``b`` each space still encodes: k-means
    on the ``n_biased`` most male- and ``n_biased`` most female-biased words, an SVM on the
    ``n_classify`` + ``n_classify`` most biased, and the correlation of ``b(w)`` with the share
    of male-biased words among w's ``k`` nearest neighbours.

    Parameters
    ----------
    original : VectorStore
    debiased : dict of str to VectorStore
        Debiased spaces by name (a mitigation method's).
    direction : ndarray of shape (dim,)
        The gender direction in the original space, masculine positive (d_PCA, or d_s for a
        language with grammatical gender).
    direction_name : str, default "d_PCA"
    exclude : sequence of str
        Gender-definitional words (pronouns, kinship and person words): left out, as the paper
        leaves out the gender-specific words.
    inanimate : sequence of str
        Grammatically gendered inanimate nouns: left out and reported separately (their gender is
        grammatical agreement, not bias).
    professions : sequence of str
        For the profession correlation.
    n_biased : int, default 500
        The paper's 500 + 500 for clustering.
    n_classify : int, default 2500
        The paper's 2,500 + 2,500 for the classifier.
    n_train : int, default 1000
        The paper's 1,000 training words; the rest are the test set.
    k : int, default 100
        The paper's neighbourhood size.
    limit : int, optional
        Use only the first ``limit`` eligible words in store order (the paper: the 50,000 most
        frequent); default all.
    seed : int, default 0
        k-means and the training sample.
    include_original : bool, default True
        Also test the original space (the first row); off when a caller has its scores already.
    vocabulary : sequence of str, optional
        The candidate words, in order (default the store's); ``exclude``, ``inanimate`` and
        ``limit`` apply to them (:func:`paper_vocabulary` gives the paper's).
    svm_gamma, balanced_split, kmeans_seed, spread_seeds, split_draw, split_seed
        As in :func:`recovery_scores`; the defaults here are geobias's earlier settings
        (``"scale"``, a pooled numpy draw seeded by ``seed``, k-means seeded by ``seed``, no spread);
        :func:`geobias.evaluation.recovery.recoverability_for` passes the paper's.
    protocol : str, default "geobias"
        A label copied into the result.

    Returns
    -------
    RecoverabilityResult

    Raises
    ------
    InputError
        Fewer than ``2 n_biased`` (or ``k + 1``) eligible words in both spaces, a direction of the
        wrong size, or ``n_train`` not below ``2 n_classify``.

    References
    ----------
    Gonen & Goldberg (2019), "Lipstick on a Pig: Debiasing Methods Cover up Systematic Gender
    Biases in Word Embeddings But do not Remove Them", NAACL, §3 (clustering of the 500 + 500
    most biased words, RBF-SVM on 1,000 of the 5,000 most biased, correlation with the male share
    of the 100 nearest neighbours; bias = projection on the gender direction before debiasing).

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> rng = np.random.default_rng(0)
    >>> vecs = rng.normal(size=(400, 8)); words = [f"w{i}" for i in range(400)]
    >>> s = VectorStore(words, vecs)
    >>> r = recoverability(s, {}, np.eye(8)[0], n_biased=50, n_classify=100, n_train=80, k=10)
    >>> r.rows[0].space, r.rows[0].cluster_accuracy > 0.5
    ('original', True)
    """
    direction = np.asarray(direction, dtype=np.float64).ravel()
    if direction.shape[0] != original.dim or not np.linalg.norm(direction) > 0:
        raise InputError(f"the direction has {direction.shape[0]} values for {original.dim}-d vectors, or is zero")
    direction = direction / np.linalg.norm(direction)
    if n_train >= 2 * n_classify:
        raise InputError(f"n_train ({n_train}) must be below 2 × n_classify ({2 * n_classify})")
    if split_draw not in ("numpy", "notebook"):
        raise InputError(f"split_draw must be 'numpy' or 'notebook', not {split_draw!r}")
    skip = set(exclude)
    inanimate_set = set(inanimate) - skip
    candidates = original.words if vocabulary is None else [w for w in vocabulary if w in original]
    words = [w for w in candidates if w not in skip and w not in inanimate_set
             and all(w in d for d in debiased.values())]
    if limit is not None:
        words = words[:limit]
    need = max(2 * n_biased, 2 * n_classify, k + 1)
    if len(words) < need:
        raise InputError(f"{len(words)} eligible words; the tests need at least {need} (lower n_biased, n_classify "
                         "or k)")
    orig = original.lookup(words, unit=True).vectors.astype(np.float64)
    bias = orig @ direction
    inanimate_share = None
    present = [w for w in inanimate_set if w in original]
    if present:
        inan_bias = original.lookup(present, unit=True).vectors.astype(np.float64) @ direction
        allb = np.concatenate([bias, inan_bias])
        is_inan = np.concatenate([np.zeros(len(bias), bool), np.ones(len(inan_bias), bool)])
        order = np.argsort(allb)
        top = np.concatenate([order[-n_biased:], order[:n_biased]])
        inanimate_share = float(is_inan[top].mean())
    index = {w: i for i, w in enumerate(words)}
    prof = np.array(sorted({index[w] for w in professions if w in index}), dtype=np.int64)
    sizes = dict(n_biased=n_biased, n_classify=n_classify, n_train=n_train, k=k, professions=prof, seed=seed,
                 svm_gamma=svm_gamma, balanced_split=balanced_split, kmeans_seed=kmeans_seed,
                 spread_seeds=tuple(spread_seeds), split_draw=split_draw, split_seed=split_seed)
    rows = [recovery_scores(orig, bias, name="original", **sizes)] if include_original else []
    for name, store in debiased.items():
        rows.append(recovery_scores(store.lookup(words).vectors, bias, name=name, **sizes))
    return RecoverabilityResult(
        rows=rows, direction=direction_name, n_eligible=len(words), n_biased=n_biased, n_classify=n_classify,
        n_train=n_train, k=k, n_professions=len(prof), excluded=len(skip & set(original.words)),
        inanimate_excluded=len(inanimate_set & set(original.words)), inanimate_among_biased=inanimate_share,
        seed=seed, protocol=protocol, svm_gamma=svm_gamma, balanced_split=balanced_split,
        kmeans_seed=seed if kmeans_seed is None else kmeans_seed, split_draw=split_draw,
        split_seed=seed if split_seed is None else split_seed,
    )
