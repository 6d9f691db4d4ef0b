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
        """Write the debiased stores, the record and what the method can re-apply
        (:meth:`~geobias.mitigation.Mitigation.save_artefacts`: the erasers' projection) to ``out``.

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
        from geobias.store.export import export_stores

        report = dict(self.report)
        exported = export_stores(self.outputs, out, fmt, record=report,
                                 drop_whitespace_words=drop_whitespace_words)
        report["dropped_whitespace_words"] = exported.dropped
        files = {**exported.files, **self.estimator.save_artefacts(out)}
        return MitigateResult(self.method, self.lang, files, fmt, report)


def needs_english(method: str, *, en_given: bool = False, dictionary_given: bool = False) -> bool:
    """Whether :func:`mitigate` needs English vectors for ``method``.

    From the method's ``needs_english``: never for ``"never"`` (hard debias, the erasers); for
    ``"optional"`` (``shift-ori``, which works monolingually) when English vectors or a
    dictionary are given; always for ``"required"``.

    Raises
    ------
    InputError
        Unknown method.
    """
    from geobias.mitigation import get_method

    need = get_method(method).needs_english
    return need == "required" or need == "optional" and (en_given or dictionary_given)


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
        A name in ``geobias.mitigation.METHODS``.
    store : VectorStore
        Vectors of ``lang`` (English for hard debias).
    lang : str
        Language code of ``store``; the key of its debiased store in ``outputs``.
    en : VectorStore, optional
        English vectors, for the bilingual methods (see ``needs_english``).
    dictionary : str or Dictionary, optional
        Alignment dictionary LANG → en (a path, ``"identical"``...), bilingual methods only.
    refine : int, default 0
        Procrustes refinement rounds, for the methods that align with a dictionary
        (``needs_dictionary`` other than ``"never"``); ignored by the others.

    Returns
    -------
    Mitigated
        Methods with ``unit_rows`` (the erasers) are fitted on and applied to
        ``store.normalized()``; the others to ``store`` itself. ``report`` is the method's
        ``report_`` with the method and the language.

    Raises
    ------
    InputError
        Unknown method, or what the method's ``fit`` raises.

    References
    ----------
    Zhou et al. (2019). Examining gender bias in languages with grammatical gender. EMNLP, §3.
    Bolukbasi et al. (2016). Man is to computer programmer as woman is to homemaker? NeurIPS.
    """
    from geobias.mitigation import get_method

    cls = get_method(method)
    est = cls(**({"refine": refine} if cls.needs_dictionary != "never" else {}))  # it aligns: Procrustes rounds
    data = store.normalized() if cls.unit_rows else store
    debiased, en_out = est.fit_transform_pair(data, en=en, dictionary=dictionary)  # maps and debiases once
    outputs = {lang: debiased, **({"en": en_out} if cls.changes_english else {})}
    report = est.report_.to_dict()
    return Mitigated(method, lang, est, outputs, {"method": method, "lang": lang, **report})
