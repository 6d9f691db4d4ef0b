"""RIPA, the relational inner product association (Ethayarajh, Duvenaud & Hirst 2019)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geobias.errors import InputError
from geobias.results import Result
from geobias.store import VectorStore


@dataclass(frozen=True)
class RipaResult(Result):
    """RIPA of each target word with the relation of the given word pairs.

    Attributes
    ----------
    words : list of str
        Target words found in the store, in the order given.
    ripa : list of float
        β(w; b) = ⟨w, b⟩ per word, same order; > 0 leans towards the first word of each pair.
    mean : float
        Mean RIPA over ``words``.
    mean_abs : float
        Mean |RIPA| over ``words`` (the size of the association whatever its sign).
    n_pairs : int
        Word pairs whose difference vectors defined the relation vector b.
    explained_variance_ratio : float
        Share of the pair differences' variance along b (1.0 for a single pair).
    unit : bool
        Whether the target vectors were unit-normalised before the inner product.
    missing : list of str
        Target and pair words not in the store (a pair with a missing word is not used).
    """

    words: list[str]
    ripa: list[float]
    mean: float
    mean_abs: float
    n_pairs: int
    explained_variance_ratio: float
    unit: bool
    missing: list[str]

    def __rich__(self):
        """The table the CLI prints: the ten words with the largest |RIPA| and the summary."""
        from rich.console import Group
        from rich.table import Table

        t = Table(title=f"RIPA (Ethayarajh et al. 2019): b from {self.n_pairs} pair(s), "
                        f"{100 * self.explained_variance_ratio:.1f}% of their variance", title_justify="left")
        t.add_column("word")
        t.add_column("⟨w, b⟩", justify="right")
        order = np.argsort(-np.abs(np.asarray(self.ripa)))[:10]
        for i in order:
            t.add_row(self.words[i], f"{self.ripa[i]:+.4f}")
        summary = (f"mean {self.mean:+.4f}, mean |RIPA| {self.mean_abs:.4f} over {len(self.words)} words "
                   f"({'unit' if self.unit else 'raw'} vectors); missing: {len(self.missing)}")
        return Group(t, summary)


def relation_vector(store: VectorStore, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, float, list[str]]:
    """The relation vector b of ordered word pairs (x, y).

    One pair: b = (x − y) / ‖x − y‖. Several: the first principal component of the differences
    {x_i − y_i} (uncentred, as a direction through the origin), oriented so that the mean
    difference projects positive.

    Parameters
    ----------
    store : VectorStore
    pairs : sequence of (str, str)
        Ordered pairs (x, y); b points from y to x.

    Returns
    -------
    b : ndarray of shape (dim,), float64
        Unit norm.
    share : float
        The share of the differences' summed squared norm that lies along b (1.0 for one pair).
    missing : list of str
        Pair words not in the store (their pairs are not used).

    References
    ----------
    Ethayarajh, Duvenaud & Hirst (2019), §5: the relation vector of a word pair or, for several,
    the first principal component of their differences.

    Raises
    ------
    InputError
        No pair with both words in the store, or a pair of identical vectors.
    """
    used = [(x, y) for x, y in pairs if x in store and y in store]
    missing = list(dict.fromkeys(w for p in pairs for w in p if w not in store))
    if not used:
        raise InputError("no word pair has both words in the store; RIPA needs at least one")
    diff = (store.lookup([x for x, _ in used]).vectors.astype(np.float64)
            - store.lookup([y for _, y in used]).vectors.astype(np.float64))
    if not np.all(np.linalg.norm(diff, axis=1) > 0):
        raise InputError("a word pair has two identical vectors; its relation is undefined")
    _, s, vt = np.linalg.svd(diff, full_matrices=False)
    b = vt[0]
    if diff.mean(axis=0) @ b < 0:
        b = -b
    return b, float(s[0] ** 2 / np.sum(s ** 2)), missing


def ripa(
    store: VectorStore,
    targets: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    *,
    unit: bool = False,
) -> RipaResult:
    """RIPA β(w; b) = ⟨w, b⟩ of each target word ``w`` with the relation of ``pairs``.

    Parameters
    ----------
    store : VectorStore
    targets : sequence of str
        The words to score; missing ones are listed in the result, never silently dropped.
    pairs : sequence of (str, str)
        Ordered pairs defining the relation (``("he", "she")``: RIPA > 0 leans male).
    unit : bool, default False
        Unit-normalise the target vectors first. The paper uses the vectors as they are (the
        inner product then grows with the word's norm, which is part of its argument).

    Returns
    -------
    RipaResult

    Raises
    ------
    InputError
        No target word in the store; see also :func:`relation_vector`.

    References
    ----------
    Ethayarajh, Duvenaud & Hirst (2019). Understanding Undesirable Word Embedding Associations.
    ACL, §5 (RIPA, eq. 5: β(w; b) = ⟨w, b⟩; b from one pair or the first principal component
    of several pairs' differences).

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["he", "she", "nurse"], np.array([[1.0, 0], [-1, 0], [-0.5, 1]]))
    >>> ripa(s, ["nurse"], [("he", "she")]).ripa
    [-0.5]
    """
    b, share, missing = relation_vector(store, pairs)
    found = [w for w in targets if w in store]
    missing = list(dict.fromkeys([*[w for w in targets if w not in store], *missing]))
    if not found:
        raise InputError("none of the target words is in the store")
    x = store.lookup(found, unit=unit).vectors.astype(np.float64)
    scores = x @ b
    return RipaResult(found, [float(v) for v in scores], float(scores.mean()), float(np.abs(scores).mean()),
                      len([p for p in pairs if p[0] in store and p[1] in store]), share, unit, missing)
