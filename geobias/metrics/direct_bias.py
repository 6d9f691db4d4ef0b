"""DirectBias (Bolukbasi et al. 2016, §5.2): how much gender-neutral words lean along a gender direction.

A metric like the others in this room, so that :mod:`geobias.metrics` callers reach it without the
mitigation room (which uses it to report hard debias before and after).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from geobias.errors import InputError
from geobias.results import Result
from geobias.store import VectorStore

__all__ = ["DirectBiasResult", "direct_bias"]


@dataclass(frozen=True)
class DirectBiasResult(Result):
    """Bolukbasi's DirectBias_c = (1/|N|) Σ_{w∈N} |cos(w, g)|^c.

    Attributes
    ----------
    direct_bias : float
    c : float
    n_words : int
        Neutral words used (|N|).
    missing : list of str
        Requested neutral words not in the vocabulary.
    per_word : dict
        word → cos(w, g) (signed; positive = masculine side).
    """

    direct_bias: float
    c: float
    n_words: int
    missing: list[str] = field(default_factory=list)
    per_word: dict[str, float] = field(default_factory=dict)


def direct_bias(store: VectorStore, direction: np.ndarray, words: Sequence[str], *, c: float = 1.0) -> DirectBiasResult:
    """DirectBias_c of ``words`` with respect to a unit gender ``direction``.

    Parameters
    ----------
    store : VectorStore
    direction : ndarray of shape (dim,)
    words : sequence of str
        Gender-neutral words N (e.g. the English occupations); out-of-vocabulary ones are listed.
    c : float, default 1.0
        Strictness (Bolukbasi et al. 2016, §5.2 use c = 1).

    Returns
    -------
    DirectBiasResult
        ``direct_bias`` in [0, 1]; cosines on unit-normalised float32 rows, summed in float64.

    Raises
    ------
    InputError
        No word in vocabulary.

    References
    ----------
    Bolukbasi et al. (2016). Man is to computer programmer as woman is to homemaker? NeurIPS, §5.2.

    Examples
    --------
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["nurse", "doctor"], np.array([[0.6, 0.8], [1.0, 0.0]]))
    >>> round(direct_bias(s, np.array([1.0, 0.0]), ["nurse", "doctor", "zzz"]).direct_bias, 3)  # (0.6 + 1) / 2
    0.8
    """
    lk = store.lookup(list(dict.fromkeys(words)), oov="ignore", unit=True)
    if not lk.words:
        raise InputError("none of the neutral words is in the vocabulary")
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.linalg.norm(d)
    cos = lk.vectors.astype(np.float64) @ d
    return DirectBiasResult(
        direct_bias=float(np.mean(np.abs(cos) ** c)),
        c=c,
        n_words=len(lk.words),
        missing=lk.missing,
        per_word=dict(zip(lk.words, cos.tolist(), strict=True)),
    )
