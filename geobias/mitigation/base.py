"""The one interface of every mitigation method: the estimator contract, what a method needs,
and one way to fit and apply it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, ClassVar, Literal

from geobias.estimator import Estimator

if TYPE_CHECKING:
    from geobias.store import VectorStore

#: Whether a method uses an input: never, when it is given, or always (``fit`` raises without it).
Need = Literal["never", "optional", "required"]


class Mitigation(Estimator):
    """Base class: ``__init__`` stores keyword parameters only; ``fit(store, *, en=None,
    dictionary=None)`` learns trailing-underscore attributes and returns ``self``;
    ``transform(store)`` returns a NEW store. After ``fit``, ``report_`` (a JSON-able
    :class:`~geobias.results.Result`) says what the fit found; ``geobias mitigate`` writes it to
    ``mitigation.json``.

    Every caller — ``geobias mitigate`` (:func:`geobias.mitigation.runner.mitigate`), the
    evaluation tables, the service — fits a method through :meth:`fit_transform_pair`, reads
    the class attributes below and writes what the method can re-apply through
    :meth:`save_artefacts`; none of them branches on the method's family.

    Class attributes
    ----------------
    name : str
        Registry key (``"shift-ori"`` ...).
    needs_english : {"never", "optional", "required"}
        Whether ``fit`` uses the English store ``en``.
    needs_dictionary : {"never", "optional", "required"}
        Whether ``fit`` uses a bilingual dictionary (source → English) to align the stores. A
        method that uses one aligns by Procrustes and takes a ``refine`` parameter (the rounds
        of refinement); it is fitted on the unaligned store.
    grammatical_gender : {"never", "optional", "required"}
        Whether the method is for a language with grammatical gender: ``"never"`` (its lists
        exist for English only: hard debias), ``"optional"`` (any language), ``"required"`` (it
        needs grammatically gendered nouns or a grammatical direction).
    keeps_grammar : bool
        The method keeps the grammatical-gender subspace out of what it removes.
    unit_rows : bool
        The method is fitted on and applied to unit-normalised rows (``store.normalized()``).
    changes_english : bool
        The method also changes the English side (De-Align, Hybrid: hard-debiased English).
    """

    name: ClassVar[str] = ""
    needs_english: ClassVar[Need] = "never"
    needs_dictionary: ClassVar[Need] = "never"
    grammatical_gender: ClassVar[Need] = "optional"
    keeps_grammar: ClassVar[bool] = False
    unit_rows: ClassVar[bool] = False
    changes_english: ClassVar[bool] = False

    @classmethod
    def from_fit_pairs(cls, fit_pairs, *, lang: str, grammatical=None, nouns=((), ()), two_form=(),
                       random_state: int = 0) -> Mitigation:
        """The method configured to learn semantic gender from ``fit_pairs`` alone (the erasure
        table's protocol: fitted on some person pairs, scored on held-out words).

        Parameters
        ----------
        fit_pairs : list of (feminine, masculine)
        lang : str
        grammatical : GenderSubspace or ndarray of shape (dim,), optional
            d_g of the store the method will be fitted on (used by methods that keep grammar).
        nouns : (list of str, list of str)
            Grammatically masculine and feminine inanimate nouns (the Shift methods' eq. 2 set).
        two_form : list of TwoFormWord
            Two-form words the Shift methods shift.
        random_state : int
        """
        raise NotImplementedError

    def fit(self, store: VectorStore, *, en: VectorStore | None = None, dictionary=None) -> Mitigation:
        """Learn the method on ``store`` (and ``en``, ``dictionary`` where the method uses them)."""
        raise NotImplementedError

    def transform(self, store: VectorStore) -> VectorStore:
        """A new, debiased store (``store`` is unchanged)."""
        raise NotImplementedError

    def fit_transform_pair(self, store: VectorStore, *, en: VectorStore | None = None,
                           dictionary=None) -> tuple[VectorStore, VectorStore | None]:
        """:meth:`fit`, then the debiased ``store`` and English side.

        Returns
        -------
        (VectorStore, VectorStore or None)
            ``transform(store)`` and ``en`` itself (a method that changes English overrides this
            and returns its debiased English).
        """
        self.fit(store, en=en, dictionary=dictionary)
        return self.transform(store), en

    @property
    def dimensions_removed_(self) -> int:
        """The number of dimensions the fitted method removes (or neutralises) from a store."""
        raise NotImplementedError

    def save_artefacts(self, out: str | os.PathLike) -> dict[str, str]:
        """Write what the fitted method can re-apply to other stores, besides the debiased vectors.

        ``geobias mitigate`` calls it after writing the vectors (the erasers write their
        :class:`~geobias.mitigation.ErasureProjection` as ``projection.npz``); the default writes
        nothing.

        Parameters
        ----------
        out : str or PathLike
            The directory the debiased vectors were written to.

        Returns
        -------
        dict of str to str
            ``{name: path}`` of each file written (empty by default).

        Raises
        ------
        NotFittedError
            Before :meth:`fit` (a method that writes something).
        InputError
            A file exists already, or ``out`` is not writable.
        """
        return {}
