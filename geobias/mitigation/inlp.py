"""INLP — Iterative Nullspace Projection (Ravfogel et al. 2020), our implementation with
scikit-learn linear classifiers, and its grammar-keeping variant
(see :mod:`geobias.mitigation.keep_grammar`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from geobias._numeric import legacy_seed
from geobias.errors import InputError
from geobias.mitigation._erasure import ErasureMitigation, ErasureProjection
from geobias.mitigation.keep_grammar import complement_projector, grammatical_basis
from geobias.store import VectorStore
from geobias.validation import check_choice

Classifier = Literal["svm", "logistic"]


class Inlp(ErasureMitigation):
    """INLP: repeatedly train a linear classifier of semantic gender and project its weight
    vector out, until a classifier on held-out fit words is at chance (or ``n_iterations``).

    Algorithm 1 of Ravfogel et al. (2020), binary case. With ``P_0 = I`` and ``B_0`` empty:
    for i = 1 … n_iterations: train ``w_i`` on ``{(P_{i-1} x, z)}`` (train part of the fit
    words); stop if its accuracy on the dev part is ``<= majority rate + tol``; else
    ``w_i ← normalise(w_i − B B^T w_i)``, ``B ← [B, w_i]``, ``P_i = I − B B^T`` (the projection
    onto the intersection of the classifiers' nullspaces, their eq. for ``P_N``). The result is
    the linear map ``r(x) = P x`` (an :class:`~geobias.mitigation.ErasureProjection` with
    ``L = B``, ``R = B^T``, ``b = 0``): an orthogonal projection, so idempotent.

    Parameters
    ----------
    masculine, feminine : sequence of str, optional
        Fit words (default: all our semantic-gender words of the store's language).
    n_iterations : int, default 35
        Maximum number of directions removed (Ravfogel et al. use 35 for word2vec).
    classifier : {"svm", "logistic"}, default "svm"
        ``LinearSVC(fit_intercept=False, dual=False)`` as in the paper's word-embedding
        experiment, or ``LogisticRegression``.
    stop_at_chance : bool, default True
    tol : float, default 0.05
        Dev accuracy within ``tol`` of the majority rate counts as chance.
    dev_fraction : float, default 0.3
        Share of the fit words (stratified) held out to monitor the stopping rule.
    random_state : int, default 0
        Seeds the train/dev split and the classifiers.
    lexicon : GenderLexicon, optional
        As :class:`~geobias.mitigation.Leace`.

    Attributes
    ----------
    projection_ : ErasureProjection
        ``info`` holds ``dev_accuracies`` (one per trained classifier), ``n_iterations``
        (directions removed) and ``stopped`` (``"chance"``, ``"n_iterations"``, or
        ``"zero weight"`` when a classifier's weight vector vanishes).
    missing_ : list of str

    References
    ----------
    Ravfogel, Elazar, Gonen, Twiton, Goldberg (2020). Null It Out: Guarding Protected
    Attributes by Iterative Nullspace Projection. ACL. Algorithm 1, §3 (P_N as the projection
    onto the intersection of nullspaces), §6.1 (word embeddings, 35 iterations, linear SVM).
    """

    name = "inlp"

    def __init__(self, *, masculine: Sequence[str] | None = None, feminine: Sequence[str] | None = None,
                 n_iterations: int = 35, classifier: Classifier = "svm", stop_at_chance: bool = True,
                 tol: float = 0.05, dev_fraction: float = 0.3, random_state: int = 0, lexicon=None):
        self.masculine = masculine
        self.lexicon = lexicon
        self.feminine = feminine
        self.n_iterations = n_iterations
        self.classifier = classifier
        self.stop_at_chance = stop_at_chance
        self.tol = tol
        self.dev_fraction = dev_fraction
        self.random_state = random_state

    def _classifier(self, seed: int):
        if self.classifier == "svm":
            from sklearn.svm import LinearSVC

            return LinearSVC(fit_intercept=False, dual=False, random_state=legacy_seed(seed))
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=2000, random_state=legacy_seed(seed))

    def _run(self, X: np.ndarray, z: np.ndarray, Q: np.ndarray | None) -> tuple[np.ndarray, dict]:
        check_choice("classifier", self.classifier, Classifier)
        if int(self.n_iterations) < 1:
            raise InputError(f"n_iterations must be at least 1; got {self.n_iterations}")
        if not 0 < self.dev_fraction < 1:
            raise InputError(f"dev_fraction must be in (0, 1); got {self.dev_fraction}")
        from sklearn.model_selection import train_test_split

        idx = np.arange(len(z))
        tr, dev = train_test_split(idx, test_size=self.dev_fraction, stratify=z, random_state=legacy_seed(self.random_state))
        Xq = X if Q is None else X @ Q
        majority = max(z[dev].mean(), 1 - z[dev].mean())
        B = np.zeros((X.shape[1], 0))
        accs: list[float] = []
        stopped = "n_iterations"
        for i in range(int(self.n_iterations)):
            Xp = Xq - (Xq @ B) @ B.T
            clf = self._classifier(self.random_state + i).fit(Xp[tr], z[tr])
            acc = float(clf.score(Xp[dev], z[dev]))
            accs.append(acc)
            if self.stop_at_chance and acc <= majority + self.tol:
                stopped = "chance"
                break
            w = np.asarray(clf.coef_, dtype=np.float64).ravel()
            if Q is not None:
                w = Q @ w
            w = w - B @ (B.T @ w)
            n = np.linalg.norm(w)
            if n < 1e-12:  # the classifier found nothing left to use
                stopped = "zero weight"
                break
            B = np.hstack([B, (w / n)[:, None]])
        info = {"n_iterations": int(B.shape[1]), "stopped": stopped, "dev_accuracies": accs, "majority_rate": float(majority),
                "classifier": self.classifier, "n_fit": len(z), "n_dev": len(dev)}
        return B, info

    def _fit_projection(self, X: np.ndarray, z: np.ndarray, store: VectorStore) -> ErasureProjection:
        B, info = self._run(X, z, None)
        return ErasureProjection(self.name, B, B.T, np.zeros(X.shape[1]), np.zeros((0, X.shape[1])), info=info)


class InlpKeepGrammar(Inlp):
    """INLP in the orthogonal complement of the grammatical-gender subspace.

    Classifiers see ``Q P x`` (``Q = I − UᵀU``, U the grammatical basis, d_g by default) and
    each weight vector is projected by Q before it is added, so ``B ⊥ G`` and
    ``r(x) = (I − B Bᵀ) x`` leaves ``U x`` unchanged (construction and properties in
    :mod:`geobias.mitigation.keep_grammar`). Chance is reached when semantic gender can no
    longer be read *outside* G; it stays readable along G by design.

    Parameters
    ----------
    masculine, feminine, n_iterations, classifier, stop_at_chance, tol, dev_fraction, random_state, lexicon
        As :class:`Inlp`.
    grammatical, grammatical_masculine, grammatical_feminine, max_nouns_per_class
        As :class:`~geobias.mitigation.LeaceKeepGrammar`.

    References
    ----------
    Ravfogel et al. (2020), Algorithm 1; Zhou et al. (2019), §3.1 (d_g).
    """

    name = "inlp-keep-grammar"
    keeps_grammar = True
    grammatical_gender = "required"

    def __init__(self, *, masculine: Sequence[str] | None = None, feminine: Sequence[str] | None = None,
                 n_iterations: int = 35, classifier: Classifier = "svm", stop_at_chance: bool = True,
                 tol: float = 0.05, dev_fraction: float = 0.3, random_state: int = 0, lexicon=None, grammatical=None,
                 grammatical_masculine: Sequence[str] | None = None,
                 grammatical_feminine: Sequence[str] | None = None, max_nouns_per_class: int | None = 2000):
        super().__init__(masculine=masculine, feminine=feminine, n_iterations=n_iterations,
                         classifier=classifier, stop_at_chance=stop_at_chance, tol=tol,
                         dev_fraction=dev_fraction, random_state=random_state, lexicon=lexicon)
        self.grammatical = grammatical
        self.grammatical_masculine = grammatical_masculine
        self.grammatical_feminine = grammatical_feminine
        self.max_nouns_per_class = max_nouns_per_class

    def _fit_projection(self, X: np.ndarray, z: np.ndarray, store: VectorStore) -> ErasureProjection:
        U, self.grammatical_info_ = grammatical_basis(
            store, self.grammatical, *self._grammatical_nouns(), max_per_class=self.max_nouns_per_class,
            random_state=self.random_state)
        B, info = self._run(X, z, complement_projector(U))
        return ErasureProjection(self.name, B, B.T, np.zeros(X.shape[1]), U,
                                 info={**info, **self.grammatical_info_})
