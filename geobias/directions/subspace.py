"""The frozen artefact a direction estimator yields."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geobias.errors import InputError
from geobias.results import Result


@dataclass(frozen=True)
class GenderSubspace(Result):
    """A fitted gender subspace: orthonormal rows, first row the gender direction.

    Attributes
    ----------
    components : ndarray of shape (k, dim), float32, read-only
        Orthonormal basis; ``components[0]`` is the direction (sign fixed by ``orientation``).
    explained_variance_ratio : ndarray of shape (k,), float64
        Share of the variance of the fitted rows carried by each component (for an LDA
        direction, which has no variance decomposition, ``[nan]``).
    source_words : tuple of str
        The words the subspace was fitted on.
    orientation : str
        How the sign was fixed, e.g. ``"masculine positive: mean <m - f, d> > 0"``.
    cv_accuracy : float or None, default None
        For a direction fitted by a classifier (LDA): its mean stratified k-fold cross-validated
        accuracy, the quality of the fit as ``explained_variance_ratio`` is for PCA; ``None``
        otherwise.
    """

    components: np.ndarray
    explained_variance_ratio: np.ndarray
    source_words: tuple[str, ...]
    orientation: str
    cv_accuracy: float | None = None

    def __post_init__(self) -> None:
        comps = np.array(np.atleast_2d(self.components), dtype=np.float32, order="C")
        comps.flags.writeable = False
        evr = np.array(self.explained_variance_ratio, dtype=np.float64).ravel()
        evr.flags.writeable = False
        object.__setattr__(self, "components", comps)
        object.__setattr__(self, "explained_variance_ratio", evr)
        object.__setattr__(self, "source_words", tuple(self.source_words))

    @property
    def direction(self) -> np.ndarray:
        """ndarray of shape (dim,), float32: the first component (unit norm)."""
        return self.components[0]

    @property
    def dim(self) -> int:
        return int(self.components.shape[1])

    def project(self, vectors: np.ndarray) -> np.ndarray:
        """Coordinates of ``vectors`` in the subspace.

        Parameters
        ----------
        vectors : array-like of shape (n, dim) or (dim,)

        Returns
        -------
        ndarray of shape (n, k) (or (k,) for one vector), float64
        """
        v = np.asarray(vectors, dtype=np.float64)
        if v.shape[-1] != self.dim:
            raise InputError(f"vectors have dimension {v.shape[-1]}; the subspace has {self.dim}")
        return v @ self.components.T.astype(np.float64)


def fitted_subspace(given: object) -> GenderSubspace | None:
    """The :class:`GenderSubspace` a consumer was given, or ``None`` for anything else.

    Parameters
    ----------
    given : GenderSubspace, fitted direction estimator or other
        A subspace itself; a direction estimator (:class:`~geobias.directions.SemanticDirection`,
        :class:`~geobias.directions.GrammaticalDirection`) whose fitted ``subspace_`` is taken;
        anything else (e.g. an ndarray the caller takes as given) → ``None``.

    Returns
    -------
    GenderSubspace or None

    Raises
    ------
    NotFittedError
        ``given`` is a direction estimator that is not fitted yet.
    """
    if isinstance(given, GenderSubspace):
        return given
    if hasattr(type(given), "fit"):
        return given.subspace_  # NotFittedError before fit (geobias.estimator.Estimator)
    return None
