"""Linear probes and the distortion of a transformed space: what the erasure tables measure a
representation with (:mod:`geobias.evaluation.erasure`).

A probe is scikit-learn's ``LogisticRegression(max_iter=2000, C=1.0)`` (L2): how much of a label a
linear classifier can read from the rows. The distortion is how much the cosines between random
pairs of words moved.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["grouped_cv_predictions", "logistic_probe", "mean_abs_dcos", "probe_accuracy"]


def logistic_probe():
    """A fresh, unfitted probe: ``LogisticRegression(max_iter=2000, C=1.0)`` (scikit-learn, L2)."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=2000, C=1.0)


def probe_accuracy(train_x: np.ndarray, train_y: np.ndarray, test_x: np.ndarray, test_y: np.ndarray) -> float:
    """Accuracy on ``test`` of a probe (:func:`logistic_probe`) trained on ``train``.

    Parameters
    ----------
    train_x, test_x : ndarray of shape (n_train, dim), (n_test, dim)
    train_y, test_y : ndarray of shape (n_train,), (n_test,)
        Labels.

    Returns
    -------
    float
        The share of ``test`` rows predicted right, in [0, 1].

    Examples
    --------
    >>> x = np.array([[-2.0], [-1.0], [1.0], [2.0]]); y = np.array([0, 0, 1, 1])
    >>> probe_accuracy(x, y, x, y)
    1.0
    """
    return float(logistic_probe().fit(train_x, train_y).score(test_x, test_y))


def grouped_cv_predictions(x_train_space: np.ndarray, x_test_space: np.ndarray, y: np.ndarray,
                           groups: np.ndarray, *, n_splits: int = 5, seed: int = 0) -> np.ndarray:
    """Out-of-fold predictions: for each fold, a probe trained on ``x_train_space`` rows of the
    other folds predicts the fold's rows of ``x_test_space`` (both forms of a pair share a
    group, hence a fold).

    Parameters
    ----------
    x_train_space, x_test_space : ndarray of shape (n, dim)
        The same words in the space the probe is trained in and the space it is tested in.
    y : ndarray of shape (n,)
    groups : ndarray of shape (n,)
        Rows of one group always fall in the same fold (scikit-learn ``GroupKFold``, the groups
        shuffled by ``seed``).
    n_splits : int, default 5
    seed : int, default 0

    Returns
    -------
    ndarray of shape (n,), float64
        The predicted label of every row.
    """
    from sklearn.model_selection import GroupKFold

    pred = np.zeros(len(y))
    rng = np.random.default_rng(seed)
    perm_groups = rng.permutation(np.unique(groups))
    relabel = {g: i for i, g in enumerate(perm_groups)}
    g = np.array([relabel[v] for v in groups])
    for tr, te in GroupKFold(n_splits=n_splits).split(x_test_space, y, g):
        pred[te] = logistic_probe().fit(x_train_space[tr], y[tr]).predict(x_test_space[te])
    return pred


def mean_abs_dcos(before: Any, after: Any, *, n_pairs: int = 20_000, seed: int = 0) -> float:
    """Mean ``|cos(a', b') − cos(a, b)|`` over ``n_pairs`` random pairs of distinct rows.

    Parameters
    ----------
    before, after : VectorStore or ndarray of shape (n, dim)
        The same words before and after a transformation: stores (their ``unit_vectors``) or unit
        rows.
    n_pairs : int, default 20,000
        Pairs drawn (with replacement; a pair of a row with itself is left out).
    seed : int, default 0

    Returns
    -------
    float
        In [0, 2]; 0 for any rotation.

    Examples
    --------
    >>> u = np.eye(3)
    >>> mean_abs_dcos(u, u[:, [1, 2, 0]], n_pairs=100)  # a permutation of the axes is a rotation
    0.0
    """
    rng = np.random.default_rng(seed)
    u0 = np.asarray(getattr(before, "unit_vectors", before))
    u1 = np.asarray(getattr(after, "unit_vectors", after))
    n = len(u0)
    i = rng.integers(0, n, n_pairs)
    j = rng.integers(0, n, n_pairs)
    keep = i != j
    i, j = i[keep], j[keep]
    c0 = np.einsum("ij,ij->i", u0[i].astype(np.float64), u0[j])
    c1 = np.einsum("ij,ij->i", u1[i].astype(np.float64), u1[j])
    return float(np.mean(np.abs(c1 - c0)))
