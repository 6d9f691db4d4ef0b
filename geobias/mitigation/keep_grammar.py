r"""Grammar-preserving erasure: remove semantic gender, keep the grammatical-gender subspace.

The construction (used by ``leace-keep-grammar`` and ``inlp-keep-grammar``)
----------------------------------------------------------------------------
Let ``U ∈ R^{m×d}`` be an orthonormal basis (rows) of the *grammatical subspace* G, learned
from grammatically gendered **inanimate** nouns only — by default ``m = 1``,
``U = d_gᵀ``, the LDA direction of Zhou et al. (2019) §3.1 — and

    Q = I − Uᵀ U                                   (orthogonal projector onto G^⊥).

The semantic-gender concept z ∈ {0, 1} (1 = masculine) is learned from words with natural
gender (definitional pairs, person nouns, occupation forms). Every vector is split as
``x = UᵀU x + Q x``; the eraser is fitted on the G^⊥ part only and its output is put back:

    r(x) = UᵀU x + r_⊥(Q x),

where ``r_⊥`` is plain LEACE (Belrose et al. 2023, Thm 4.3) or INLP (Ravfogel et al. 2020)
fitted on ``{(Q x_i, z_i)}``. Written as one affine map ``r(x) = x − L R (x − b)``:

- LEACE: with ``Σ = Cov(Qx)`` (shrunk), ``W = (Σ^{1/2})^+``, ``Σ_xz = Cov(Qx, z)``,
  ``P_W`` the orthogonal projector onto ``col(W Σ_xz)``: ``L = Q W^+ P_W``, ``R = P_W W Q``,
  ``b = mean(x)``.
- INLP: classifiers are trained on ``Q P_{i-1} x``; each weight vector is projected by Q and
  Gram–Schmidt-orthonormalised into ``B = [w_1 … w_k]``; ``L = B``, ``R = Bᵀ``, ``b = 0``.

Properties (proved in ``tests/mitigation/test_erasure.py`` on synthetic data with a known truth):

1. **Grammar kept exactly**: ``L`` has its columns in G^⊥ (``U L = 0``), hence
   ``U r(x) = U x`` for every x — every projection on d_g, and so the LDA grammatical
   classifier's scores, are unchanged (not only "within a tolerance").
2. **Semantic gender erased outside G**: for LEACE, on the fit words,
   ``Q · Cov(r(x), z) = 0`` — the class-conditional means of ``r(x)`` differ only inside G,
   so no linear classifier that reads ``Q r(x)`` beats the constant predictor (Belrose et al.
   Thm 3.1 applied to Qx).
3. **What cannot be erased**: ``Cov(r(x), z) = UᵀU Cov(x, z)``. The part of semantic gender
   that lies along the grammatical subspace stays by construction. In French a person noun's
   semantic gender *is* its grammatical gender (la mère, le père), so this residue is not a
   defect of the method but the price of keeping agreement: any map that removes it also
   moves d_g-projections of inanimate nouns (their grammatical gender).
4. **Idempotent**: ``r ∘ r = r`` (``L R`` is a projection and ``R L R = R``).

References
----------
Belrose, Schneider-Joseph, Ravfogel, Cotterell, Raff, Biderman (2023). LEACE: Perfect linear
concept erasure in closed form. NeurIPS. Thm 3.1 (linear guardedness ⇔ equal class means),
Thm 4.3 (the LEACE map). Ravfogel, Elazar, Gonen, Twiton, Goldberg (2020). Null It Out:
Guarding Protected Attributes by Iterative Nullspace Projection. ACL, Algorithm 1.
Zhou et al. (2019). Examining Gender Bias in Languages with Grammatical Gender. EMNLP, §3.1 (d_g).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geobias.directions.subspace import fitted_subspace
from geobias.errors import InputError
from geobias.store import VectorStore


def grammatical_basis(
    store: VectorStore,
    grammatical=None,
    masculine: Sequence[str] | None = None,
    feminine: Sequence[str] | None = None,
    *,
    max_per_class: int | None = 2000,
    random_state: int = 0,
) -> tuple[np.ndarray, dict]:
    """Orthonormal basis ``U`` (rows) of the grammatical subspace to keep.

    Parameters
    ----------
    store : VectorStore
        The store the eraser is fitted on (rows as given; pass a unit-normalised store).
    grammatical : GenderSubspace, fitted GrammaticalDirection, or ndarray of shape (dim,) or (m, dim), optional
        A precomputed direction/basis (orthonormalised here). Default: d_g by LDA on the nouns.
    masculine, feminine : sequence of str, optional
        Grammatically masculine / feminine inanimate nouns; default the project's lists for
        ``store.lang`` (``wordlists/<lang>/nouns_*.txt``).
    max_per_class : int or None, default 2000
        Cap on nouns per class for the LDA fit (random subset, ``random_state``).
    random_state : int, default 0

    Returns
    -------
    U : ndarray of shape (m, dim), float64, orthonormal rows
    info : dict
        ``{"source": "lda" | "given", "lda_cv_accuracy": float | None, "n_nouns": dict | None}``

    Raises
    ------
    InputError
        A given basis of the wrong dimension or rank 0; a language without gendered nouns.

    References
    ----------
    Zhou et al. (2019), §3.1 (LDA grammatical direction d_g).
    """
    if grammatical is not None:
        given = fitted_subspace(grammatical)
        g = np.atleast_2d(np.asarray(grammatical if given is None else given.components, dtype=np.float64))
        if g.shape[1] != store.dim:
            raise InputError(f"grammatical basis has dimension {g.shape[1]}; the store has {store.dim}")
        u, s, vt = np.linalg.svd(g, full_matrices=False)
        keep = s > 1e-10 * max(1.0, float(s[0]) if len(s) else 1.0)
        if not keep.any():
            raise InputError("the grammatical basis is zero")
        return vt[keep], {"source": "given", "lda_cv_accuracy": None if given is None else given.cv_accuracy,
                          "n_nouns": None}
    from geobias import wordlists
    from geobias.directions import GrammaticalDirection

    if masculine is None or feminine is None:
        lang = store.lang or ""
        try:
            masculine, feminine = wordlists.gendered_nouns(lang)
        except InputError as exc:
            raise InputError(f"keeping grammar needs grammatically gendered nouns: {exc}") from None
    gd = GrammaticalDirection(cv=5, random_state=random_state, max_per_class=max_per_class, normalize=False,
                              oov="ignore").fit(store, list(masculine), list(feminine))
    d = np.asarray(gd.direction_, dtype=np.float64)
    return (d / np.linalg.norm(d))[None, :], {"source": "lda", "lda_cv_accuracy": gd.cv_accuracy_,
                                              "n_nouns": gd.n_nouns_}


def complement_projector(U: np.ndarray) -> np.ndarray:
    """``Q = I − Uᵀ U``: ndarray of shape (dim, dim), float64 (U with orthonormal rows)."""
    return np.eye(U.shape[1]) - U.T @ U
