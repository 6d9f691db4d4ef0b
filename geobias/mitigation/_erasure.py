"""Shared parts of the concept-erasure estimators (LEACE, INLP and their grammar-keeping
variants): the frozen projection artefact, the labelled semantic-gender words, the base class."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from geobias import wordlists
from geobias.errors import InputError
from geobias.mitigation.base import Mitigation
from geobias.results import Result
from geobias.store import VectorStore


def _frozen(a: Any) -> np.ndarray:
    arr = np.array(a, dtype=np.float64, order="C")
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True)
class ErasureProjection(Result):
    """A fitted erasure: the affine map ``r(x) = x − L R (x − b)`` (a small frozen artefact).

    LEACE stores its oblique projection this way (concept-erasure's ``LeaceEraser``:
    ``proj_left``, ``proj_right``, ``bias``); INLP is the special case ``L = B``, ``R = Bᵀ``,
    ``b = 0`` with ``B`` an orthonormal basis of the removed directions.

    Attributes
    ----------
    method : str
        Registry name of the estimator that fitted it (``"leace"``, ``"inlp-keep-grammar"`` ...).
    left : ndarray of shape (dim, k), float64, read-only
    right : ndarray of shape (k, dim), float64, read-only
        ``L R`` is the (rank-``k``) part of the identity that is removed.
    bias : ndarray of shape (dim,), float64, read-only
        The centre ``b`` (the fit words' mean for LEACE; zeros for INLP).
    kept : ndarray of shape (m, dim), float64, read-only
        Orthonormal basis of the subspace the erasure was constrained to keep (the
        grammatical-gender subspace; ``m = 0`` for unconstrained methods). ``r`` leaves
        ``kept @ x`` unchanged.
    source_words : dict
        ``{"masculine": [...], "feminine": [...]}``: the labelled words it was fitted on.
    info : dict
        Method details (iterations, accuracies, shrinkage ...).
    """

    method: str
    left: np.ndarray
    right: np.ndarray
    bias: np.ndarray
    kept: np.ndarray
    source_words: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        left = np.atleast_2d(np.asarray(self.left, dtype=np.float64))
        right = np.atleast_2d(np.asarray(self.right, dtype=np.float64))
        dim = left.shape[0]
        if right.shape != (left.shape[1], dim):
            raise InputError(f"projection factors do not match: left {left.shape}, right {right.shape}")
        bias = np.asarray(self.bias, dtype=np.float64).reshape(-1)
        if bias.shape != (dim,):
            raise InputError(f"bias has shape {bias.shape}; expected ({dim},)")
        kept = np.asarray(self.kept, dtype=np.float64).reshape(-1, dim)
        for name, arr in (("left", left), ("right", right), ("bias", bias), ("kept", kept)):
            object.__setattr__(self, name, _frozen(arr))

    @property
    def dim(self) -> int:
        return int(self.left.shape[0])

    @property
    def rank(self) -> int:
        """Number of removed dimensions (numerical rank of ``L R``)."""
        if self.left.shape[1] == 0:
            return 0
        s = np.linalg.svd(self.left @ self.right, compute_uv=False)
        return int(np.sum(s > 1e-8 * max(1.0, float(s[0]))))

    def matrix(self) -> np.ndarray:
        """``P = I − L R``: ndarray of shape (dim, dim), float64 (``r(x) = P x + L R b``)."""
        return np.eye(self.dim) - self.left @ self.right

    def apply(self, vectors: Any) -> np.ndarray:
        """``r(x) = x − L R (x − b)`` for each row.

        Parameters
        ----------
        vectors : array-like of shape (n, dim) or (dim,)

        Returns
        -------
        ndarray of the input's shape, float64 (a new array; the input is not modified).

        Raises
        ------
        InputError
            Dimension differs from the projection's.
        """
        x = np.asarray(vectors, dtype=np.float64)
        if x.shape[-1] != self.dim:
            raise InputError(f"vectors have dimension {x.shape[-1]}; the projection was fitted in dimension {self.dim}")
        return x - ((x - self.bias) @ self.right.T) @ self.left.T

    def save(self, path: str | os.PathLike) -> None:
        """Write the artefact as ``.npz`` (atomically; an existing file is not overwritten).

        Raises
        ------
        InputError
            ``path`` exists, or its directory is missing or not writable.
        """
        import json

        from geobias.io.atomic import atomic_write

        meta = json.dumps({"method": self.method, "source_words": self.source_words, "info": self.info},
                          ensure_ascii=False, default=str)
        with atomic_write(path, what="projection", mode="wb", overwrite=False) as fh:
            np.savez(fh, left=self.left, right=self.right, bias=self.bias, kept=self.kept,
                     meta=np.array(meta))

    @classmethod
    def load(cls, path: str | os.PathLike) -> ErasureProjection:
        """Read an artefact written by :meth:`save`.

        Raises
        ------
        InputError
            Missing file, or not a projection written by :meth:`save`.
        """
        import json
        import zipfile

        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                return cls(meta["method"], z["left"], z["right"], z["bias"], z["kept"],
                           meta.get("source_words", {}), meta.get("info", {}))
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except (KeyError, ValueError, OSError, zipfile.BadZipFile) as exc:
            raise InputError(f"{path}: not an erasure projection ({exc})") from None

    def to_dict(self) -> dict[str, Any]:  # small: factors are (dim, k)
        from geobias.results import jsonable

        return jsonable({"method": self.method, "dim": self.dim, "rank": self.rank,
                         "n_kept": int(self.kept.shape[0]), "left": self.left, "right": self.right,
                         "bias": self.bias, "kept": self.kept, "source_words": self.source_words,
                         "info": self.info})

    def __str__(self) -> str:
        nm = len(self.source_words.get("masculine", []))
        nf = len(self.source_words.get("feminine", []))
        kept = f", keeps a {self.kept.shape[0]}-dim subspace" if self.kept.shape[0] else ""
        return (f"ErasureProjection({self.method}: dim {self.dim}, removes rank {self.rank}{kept}; "
                f"fitted on {nm} masculine + {nf} feminine words)")


def semantic_gender_words(lang: str, *, exclude: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """Our words with natural (semantic) gender for ``lang``: ``(masculine, feminine)``.

    The union, in this order and without duplicates, of the definitional pairs, the person
    pairs (``wordlists/<lang>/person_pairs.tsv`` where it exists), the attribute words and the
    occupations with two distinct forms (fr, es, de). English adds Bolukbasi-style equalise
    pairs (``wordlists/en/equalize_pairs.tsv``).

    Parameters
    ----------
    lang : str
    exclude : sequence of str
        Words left out (e.g. MWEAT's held-out attribute words).

    Raises
    ------
    InputError
        Unknown language.
    """
    pairs: list[tuple[str, str]] = list(wordlists.definitional_pairs(lang))
    extra = wordlists.wordlist_dir() / lang / "person_pairs.tsv"
    if extra.exists():
        pairs += wordlists.read_pair_file(extra)
    male, female = wordlists.attribute_words(lang)
    if lang == "en":
        from geobias.mitigation.lexicon import read_equalize_pairs

        pairs += read_equalize_pairs()
    else:
        pairs += [(o.feminine, o.masculine) for o in wordlists.occupations(lang) if o.feminine != o.masculine]
    masc = [m for _, m in pairs] + list(male)
    fem = [f for f, _ in pairs] + list(female)
    drop = set(exclude)
    masc = [w for w in dict.fromkeys(masc) if w not in drop]
    fem = [w for w in dict.fromkeys(fem) if w not in drop and w not in masc]
    return masc, fem


class ErasureMitigation(Mitigation):
    """Base of the concept-erasure estimators: labelled words → a fitted
    :class:`ErasureProjection` ``projection_``; ``transform`` applies it to every row.

    Subclasses implement ``_fit_projection(X, z, store)``.
    """

    keeps_grammar: ClassVar[bool] = False
    unit_rows = True  # fitted on and applied to unit rows: the cosine geometry every metric reads

    def _labelled(self, store: VectorStore) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
        if self.masculine is None and self.feminine is None and self.lexicon is not None:
            pairs = list(self.lexicon.definitional_pairs) + [(f, m) for f, m, *_ in self.lexicon.two_form if f != m]
            masc = list(dict.fromkeys(m for _, m in pairs))
            fem = [f for f in dict.fromkeys(f for f, _ in pairs) if f not in masc]
        elif self.masculine is None and self.feminine is None:
            masc, fem = semantic_gender_words(store.lang or "en")
        elif self.masculine is None or self.feminine is None:
            raise InputError("give both masculine and feminine words, or neither (the project's lists)")
        else:
            masc, fem = list(dict.fromkeys(self.masculine)), list(dict.fromkeys(self.feminine))
        both = set(masc) & set(fem)
        if both:
            raise InputError(f"word(s) labelled both masculine and feminine: {', '.join(sorted(both)[:5])}")
        lm = store.lookup(masc, oov="ignore")
        lf = store.lookup(fem, oov="ignore")
        for name, lk in (("masculine", lm), ("feminine", lf)):
            if len(lk.words) < 2:
                raise InputError(f"only {len(lk.words)} {name} fit word(s) in the vocabulary; need at least 2")
        X = np.concatenate([lm.vectors, lf.vectors]).astype(np.float64)
        z = np.concatenate([np.ones(len(lm.words)), np.zeros(len(lf.words))])
        self.missing_ = lm.missing + lf.missing
        return X, z, lm.words, lf.words

    def _grammatical_nouns(self) -> tuple[list[str] | None, list[str] | None]:
        """The inanimate nouns of the keep-grammar variants: given, else the lexicon's, else None
        (then :func:`~geobias.mitigation.keep_grammar.grammatical_basis` reads the project's)."""
        if self.grammatical_masculine is not None or self.grammatical_feminine is not None:
            return self.grammatical_masculine, self.grammatical_feminine
        if self.lexicon is not None and self.lexicon.masculine_nouns and self.lexicon.feminine_nouns:
            return list(self.lexicon.masculine_nouns), list(self.lexicon.feminine_nouns)
        return None, None

    @classmethod
    def from_fit_pairs(cls, fit_pairs, *, lang: str, grammatical=None, nouns=((), ()), two_form=(),
                       random_state: int = 0) -> ErasureMitigation:
        """See :meth:`Mitigation.from_fit_pairs`: the masculine and feminine words of ``fit_pairs``
        are the labelled words; ``grammatical`` (d_g) is kept by the grammar-keeping variants."""
        import inspect

        kw: dict = {"masculine": [m for _, m in fit_pairs], "feminine": [f for f, _ in fit_pairs]}
        if cls.keeps_grammar:
            kw["grammatical"] = grammatical
        if "random_state" in inspect.signature(cls).parameters:
            kw["random_state"] = random_state
        return cls(**kw)

    def fit(self, store: VectorStore, *, en: VectorStore | None = None, dictionary=None) -> ErasureMitigation:
        """Fit the erasure on the labelled words' rows of ``store``.

        Parameters
        ----------
        store : VectorStore
            Rows are used as given (pass ``store.normalized()`` for cosine geometry).
        en, dictionary : ignored
            Accepted so that every method of :data:`geobias.mitigation.METHODS` fits alike.

        Returns
        -------
        self

        Raises
        ------
        InputError
            Fewer than 2 fit words of a gender in the vocabulary; a word in both lists; for the
            ``*-keep-grammar`` methods, no grammatical nouns (English) or a bad basis.
        """
        X, z, masc, fem = self._labelled(store)
        import dataclasses

        self.projection_ = dataclasses.replace(self._fit_projection(X, z, store),
                                               source_words={"masculine": masc, "feminine": fem})
        self.dim_ = store.dim
        self.fitted_ = True
        return self

    def transform(self, store: VectorStore) -> VectorStore:
        """A new store with every row erased: ``r(x) = x − L R (x − b)``.

        Parameters
        ----------
        store : VectorStore
            Of the fitted dimension (any vocabulary).

        Returns
        -------
        VectorStore
            Same words and order, float32 (computed in float64); the input is unchanged.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InputError
            Dimension differs from the fitted one.
        """
        self._check_fitted()
        if store.dim != self.projection_.dim:
            raise InputError(f"store dimension {store.dim} differs from the fitted projection's {self.projection_.dim}")
        return store.with_vectors(self.projection_.apply(store.vectors).astype(np.float32), note=self.name)

    @property
    def dimensions_removed_(self) -> int:
        """The rank of the erased subspace."""
        return self.projection_.rank

    def save_artefacts(self, out: str | os.PathLike) -> dict[str, str]:
        """Write ``projection_`` to ``out/projection.npz``: the frozen map, re-applicable to any
        store of the fitted dimension (:meth:`ErasureProjection.load`).

        Parameters
        ----------
        out : str or PathLike
            An existing directory.

        Returns
        -------
        dict of str to str
            ``{"projection": path}``.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InputError
            ``projection.npz`` exists, or ``out`` is missing or not writable.
        """
        from pathlib import Path

        self._check_fitted()
        path = str(Path(out) / "projection.npz")
        self.projection_.save(path)
        return {"projection": path}

    @property
    def report_(self) -> Result:
        self._check_fitted()
        return _ErasureReport(self.name, self.projection_.rank, int(self.projection_.kept.shape[0]),
                              len(self.projection_.source_words["masculine"]),
                              len(self.projection_.source_words["feminine"]),
                              list(self.missing_), dict(self.projection_.info))


@dataclass(frozen=True)
class _ErasureReport(Result):
    method: str
    rank_removed: int
    n_kept: int
    n_masculine: int
    n_feminine: int
    missing: list
    info: dict
