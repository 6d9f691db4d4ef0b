"""Run a registered mitigation method by name and save what it produced (``geobias mitigate``).

:func:`mitigate` fits the method on the stores it needs and returns a :class:`Mitigated`
(the fitted estimator, the debiased stores and a JSON-able report); :meth:`Mitigated.save`
writes them and returns the :class:`MitigateResult` that the CLI prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geobias.results import Result

if TYPE_CHECKING:
    from geobias.alignment.dictionary import Dictionary
    from geobias.mitigation.base import Mitigation
    from geobias.store import VectorStore


@dataclass(frozen=True)
class MitigateResult(Result):
    """What ``geobias mitigate`` wrote.

    Attributes
    ----------
    method : str
        Registered method name (:data:`geobias.mitigation.METHODS`).
    lang : str
        The language of the debiased store.
    files : dict
        ``{name: path}``: one vector file per debiased store (``lang``, and ``en`` when the
        method changes English), the record ``mitigation.json``, and ``projection`` (an
        :class:`ErasureProjection` ``.npz``) for the erasure methods.
    format : str
        Vector file format.
    report : dict
        ``method``, ``lang``, the method's own report and ``dropped_whitespace_words``.
    """

    method: str
    lang: str
    files: dict
    format: str
    report: dict


@dataclass(frozen=True)
class Mitigated:
    """A fitted mitigation and its output, not yet written.

    Attributes
    ----------
    method, lang : str
    estimator : Mitigation
        The fitted estimator.
    outputs : dict of str to VectorStore
        ``{lang: debiased}``, plus ``{"en": debiased English}`` when the method changes English.
    report : dict
        ``{"method", "lang", **the method's report}`` (JSON-able).
    """

    method: str
    lang: str
    estimator: Mitigation
    outputs: dict[str, VectorStore]
    report: dict[str, Any]

    def save(self, out: str | Path, fmt: str = "w2v-text", *, drop_whitespace_words: bool = False
             ) -> MitigateResult:
        """Write the debiased stores, the record and (erasure methods) the projection to ``out``.

        Parameters
        ----------
        out : str or Path
            A new or empty directory (see :func:`geobias.store.export.export_stores`).
        fmt : {"w2v-text", "w2v-bin", "vec", "kv", "npz"}, default "w2v-text"
        drop_whitespace_words : bool, default False
            As in :func:`geobias.store.export.export_stores`.

        Returns
        -------
        MitigateResult
            Its ``report["dropped_whitespace_words"]`` lists the words left out per store, for the
            caller to warn about.

        Raises
        ------
        InputError
            As :func:`geobias.store.export.export_stores`.
        """
        from geobias.mitigation import ErasureMitigation
        from geobias.store.export import export_stores

        report = dict(self.report)
        exported = export_stores(self.outputs, out, fmt, record=report,
                                 drop_whitespace_words=drop_whitespace_words)
        report["dropped_whitespace_words"] = exported.dropped
        files = exported.files
        if isinstance(self.estimator, ErasureMitigation):  # the frozen artefact, re-applicable to any store of this dimension
            files = {**files, "projection": str(Path(out) / "projection.npz")}
            self.estimator.projection_.save(files["projection"])
        return MitigateResult(self.method, self.lang, files, fmt, report)


def needs_english(method: str, *, en_given: bool = False, dictionary_given: bool = False) -> bool:
    """Whether :func:`mitigate` needs English vectors for ``method``.

    Only a bilingual method (Zhou et al.) uses them: always when English vectors or a
    dictionary are given, and otherwise for every bilingual method but ``shift-ori`` (which
    works monolingually). Hard debias and the erasure methods never do.

    Raises
    ------
    InputError
        Unknown method.
    """
    from geobias.mitigation import ErasureMitigation, HardDebias, get_method

    cls = get_method(method)
    if issubclass(cls, ErasureMitigation) or cls is HardDebias:
        return False
    return en_given or dictionary_given or cls.bilingual and method != "shift-ori"


def mitigate(
    method: str,
    store: VectorStore,
    lang: str,
    *,
    en: VectorStore | None = None,
    dictionary: str | Dictionary | None = None,
    refine: int = 0,
) -> Mitigated:
    """Fit the registered mitigation ``method`` and debias.

    Parameters
    ----------
    method : str
        A name in :data:`geobias.mitigation.METHODS`.
    store : VectorStore
        Vectors of ``lang`` (English for hard debias).
    lang : str
        Language code of ``store``; the key of its debiased store in ``outputs``.
    en : VectorStore, optional
        English vectors, for the bilingual methods (see :func:`needs_english`).
    dictionary : str or Dictionary, optional
        Alignment dictionary LANG → en (a path, ``"identical"``...), bilingual methods only.
    refine : int, default 0
        Procrustes refinement rounds, bilingual methods only.

    Returns
    -------
    Mitigated
        Erasure methods are fitted on and applied to ``store.normalized()`` (unit rows); the
        others to ``store`` itself. The report of hard debias holds the first five explained
        variance ratios of the gender direction and the sizes of its word sets.

    Raises
    ------
    InputError
        Unknown method, or what the method's ``fit`` raises.

    References
    ----------
    Zhou et al. (2019). Examining gender bias in languages with grammatical gender. EMNLP, §3.
    Bolukbasi et al. (2016). Man is to computer programmer as woman is to homemaker? NeurIPS.
    """
    from geobias.mitigation import ErasureMitigation, HardDebias, get_method

    cls = get_method(method)
    if issubclass(cls, ErasureMitigation):
        unit = store.normalized()
        est = cls().fit(unit)
        outputs = {lang: est.transform(unit)}
        report = est.report_.to_dict()
    elif cls is HardDebias:
        est = cls().fit(store)
        outputs = {lang: est.transform(store)}
        report = {"direction_explained_variance_ratio": list(est.explained_variance_ratio_[:5]),
                  "n_gender_specific": len(est.gender_specific_), "n_equalize_pairs": len(est.equalize_pairs_)}
    else:
        est = cls(refine=refine)
        debiased, en_out = est.fit_transform_pair(store, en, dictionary)  # maps and debiases once
        outputs = {lang: debiased}
        if cls.changes_english:
            outputs["en"] = en_out
        report = est.report_.to_dict()
    return Mitigated(method, lang, est, outputs, {"method": method, "lang": lang, **report})
