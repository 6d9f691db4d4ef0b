"""LEACE (Belrose et al. 2023) through EleutherAI's ``concept-erasure`` package, and its
grammar-keeping variant (see :mod:`geobias.mitigation.keep_grammar`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geobias.errors import InputError
from geobias.mitigation._erasure import ErasureMitigation, ErasureProjection
from geobias.mitigation.keep_grammar import complement_projector, grammatical_basis
from geobias.store import VectorStore


def _leace_factors(X: np.ndarray, z: np.ndarray, *, shrinkage: bool, svd_tol: float,
                   constrain_cov_trace: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    try:
        import torch
        from concept_erasure import LeaceFitter
    except ImportError as exc:  # pragma: no cover - the dependency is declared
        raise InputError(f"LEACE needs the concept-erasure package ({exc}); pip install --no-deps concept-erasure") from None
    fitter = LeaceFitter.fit(torch.from_numpy(np.ascontiguousarray(X)), torch.from_numpy(z.reshape(-1, 1)),
                             method="leace", shrinkage=shrinkage, svd_tol=svd_tol,
                             constrain_cov_trace=constrain_cov_trace)
    er = fitter.eraser
    M = (er.proj_left @ er.proj_right).numpy().astype(np.float64)
    # compact to the numerical rank (the trace constraint returns full d × d factors)
    u, s, vt = np.linalg.svd(M)
    r = int(np.sum(s > 1e-9 * max(1.0, float(s[0]))))
    left = u[:, :r] * s[:r]
    right = vt[:r]
    bias = er.bias.numpy().astype(np.float64) if er.bias is not None else np.zeros(X.shape[1])
    return left, right, bias


class Leace(ErasureMitigation):
    """LEACE: the least-squares affine map after which no linear classifier predicts the
    semantic gender of the fit words better than a constant.

    With x the fit words' rows, z ∈ {0, 1} (1 = masculine), ``Σ = Cov(x)`` (linearly shrunk,
    concept-erasure's default), ``W = (Σ^{1/2})^+``, ``P_W`` the orthogonal projector onto
    ``col(W Cov(x, z))``:

        r(x) = x − W^+ P_W W (x − E[x])                          (Belrose et al. 2023, Thm 4.3)

    so that ``Cov(r(x), z) = 0`` (equal class means ⇔ linear guardedness, Thm 3.1). The fit is
    delegated to ``concept_erasure.LeaceFitter``; the result is stored as an
    :class:`~geobias.mitigation.ErasureProjection` ``projection_`` (``L R = W^+ P_W W``).

    Parameters
    ----------
    masculine, feminine : sequence of str, optional
        Words of natural masculine / feminine gender to fit on. Default: all our semantic-gender
        words of the store's language (:func:`~geobias.mitigation._erasure.semantic_gender_words`).
    shrinkage : bool, default True
        Shrink ``Σ`` (concept-erasure's optimal linear shrinkage; needed when there are fewer
        fit words than dimensions).
    svd_tol : float, default 0.01
        concept-erasure's threshold on the singular values of ``W Cov(x, z)``.
    constrain_cov_trace : bool, default False
        concept-erasure's guard against increasing the total variance (it mixes the LEACE map
        with an orthogonal projection, which is then neither exactly idempotent nor exactly
        guarding; off by default: the paper's map, Thm 4.3).
    lexicon : GenderLexicon, optional
        Word lists to take the fit words from when ``masculine``/``feminine`` are not given:
        its definitional pairs and two-form pairs (and, for the keep-grammar variant, its
        grammatically gendered nouns).

    Attributes
    ----------
    projection_ : ErasureProjection
    missing_ : list of str
        Fit words not in the vocabulary (skipped).

    References
    ----------
    Belrose, Schneider-Joseph, Ravfogel, Cotterell, Raff, Biderman (2023). LEACE: Perfect linear
    concept erasure in closed form. NeurIPS. Thm 3.1, Thm 4.3 (eq. for r(x)).
    """

    name = "leace"

    def __init__(self, *, masculine: Sequence[str] | None = None, feminine: Sequence[str] | None = None,
                 shrinkage: bool = True, svd_tol: float = 0.01, constrain_cov_trace: bool = False,
                 lexicon=None):
        self.masculine = masculine
        self.lexicon = lexicon
        self.feminine = feminine
        self.shrinkage = shrinkage
        self.svd_tol = svd_tol
        self.constrain_cov_trace = constrain_cov_trace

    def _fit_projection(self, X: np.ndarray, z: np.ndarray, store: VectorStore) -> ErasureProjection:
        left, right, bias = _leace_factors(X, z, shrinkage=self.shrinkage, svd_tol=self.svd_tol,
                                           constrain_cov_trace=self.constrain_cov_trace)
        return ErasureProjection(self.name, left, right, bias, np.zeros((0, X.shape[1])),
                                 info={"shrinkage": self.shrinkage, "n_fit": len(z)})


class LeaceKeepGrammar(Leace):
    """LEACE fitted in the orthogonal complement of the grammatical-gender subspace.

    ``r(x) = UᵀU x + r_⊥(Q x)`` with ``Q = I − UᵀU`` and ``r_⊥`` LEACE fitted on
    ``{(Q x_i, z_i)}`` (the construction, its equations and its properties are in
    :mod:`geobias.mitigation.keep_grammar`): projections on the grammatical subspace are kept
    exactly; the semantic-gender covariance is removed everywhere except inside that subspace.

    Parameters
    ----------
    masculine, feminine, shrinkage, svd_tol, constrain_cov_trace, lexicon
        As :class:`Leace`.
    grammatical : ndarray of shape (dim,) or (m, dim), or fitted GrammaticalDirection, optional
        The subspace to keep. Default: d_g by LDA on ``grammatical_masculine/feminine``.
    grammatical_masculine, grammatical_feminine : sequence of str, optional
        Grammatically gendered inanimate nouns (default the project's lists).
    max_nouns_per_class : int or None, default 2000

    Attributes
    ----------
    projection_ : ErasureProjection
        ``kept`` holds U.
    grammatical_info_ : dict

    References
    ----------
    Belrose et al. (2023), Thm 4.3; Zhou et al. (2019), §3.1 (d_g).
    """

    name = "leace-keep-grammar"
    keeps_grammar = True
    grammatical_gender = "required"

    def __init__(self, *, masculine: Sequence[str] | None = None, feminine: Sequence[str] | None = None,
                 shrinkage: bool = True, svd_tol: float = 0.01, constrain_cov_trace: bool = False,
                 lexicon=None, grammatical=None, grammatical_masculine: Sequence[str] | None = None,
                 grammatical_feminine: Sequence[str] | None = None, max_nouns_per_class: int | None = 2000):
        super().__init__(masculine=masculine, feminine=feminine, shrinkage=shrinkage, svd_tol=svd_tol,
                         constrain_cov_trace=constrain_cov_trace, lexicon=lexicon)
        self.grammatical = grammatical
        self.grammatical_masculine = grammatical_masculine
        self.grammatical_feminine = grammatical_feminine
        self.max_nouns_per_class = max_nouns_per_class

    def _fit_projection(self, X: np.ndarray, z: np.ndarray, store: VectorStore) -> ErasureProjection:
        U, self.grammatical_info_ = grammatical_basis(
            store, self.grammatical, *self._grammatical_nouns(), max_per_class=self.max_nouns_per_class)
        Q = complement_projector(U)
        left, right, bias = _leace_factors(X @ Q, z, shrinkage=self.shrinkage, svd_tol=self.svd_tol,
                                           constrain_cov_trace=self.constrain_cov_trace)
        left = Q @ left  # exact: the removed directions lie in G^⊥ (already so up to rounding)
        right = right @ Q  # r(x) = x − L R Q (x − b)
        cov = ((X - X.mean(0)).T @ (z - z.mean())) / (len(z) - 1)
        info = {"shrinkage": self.shrinkage, "n_fit": len(z), **self.grammatical_info_,
                "semantic_covariance_in_grammatical_subspace": float(np.linalg.norm(U @ cov) / max(np.linalg.norm(cov), 1e-300))}
        return ErasureProjection(self.name, left, right, bias, U, info=info)
