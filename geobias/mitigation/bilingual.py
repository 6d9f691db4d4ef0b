"""Zhou et al. (2019) §3 mitigation in a gendered language and its bilingual space with English:
Shift Ori, Shift EN, De-Align, Hybrid Ori, Hybrid EN.

Every method is one configuration of the same pipeline:

1. *De-Align / Hybrid*: hard-debias the English store (Bolukbasi et al. 2016).
2. Align the gendered store to the (possibly debiased) English store by orthogonal Procrustes
   on the bilingual dictionary (MUSE supervised mode). Without a dictionary the stores are
   taken as already aligned (e.g. MUSE-aligned files) and no map is applied.
3. *Shift*: with d_s the orthogonalised semantic direction — d_PCA fitted on the definitional
   pairs (Shift Ori: the gendered language's own pairs only, §3.2 is monolingual; the bilingual
   methods Shift EN and Hybrid: the pairs of BOTH languages in the shared space), d_g the LDA
   direction of the gendered language's nouns — project d_s out of every inanimate noun (eq. 2)
   and move each two-form pair (w_m, w_f) along d_s by δ = (2<a, d_s> − <w_m, d_s> − <w_f, d_s>)/2
   (eq. 4), so that the pair is symmetric about its anchor a: the origin (Ori) or the aligned
   English translation (EN).

The neutralised set (``neutralize="inanimate"``, the default and the paper's): the grammatically
gendered nouns of the language (our d_g noun lists, which already leave out two-form animate
nouns and our definitional/attribute/occupation words) minus our person-noun list
(``wordlists/<lang>/person_nouns.txt``), the definitional words and the two-form words
(:meth:`GenderLexicon.inanimate_nouns`). Every other word — verbs, adjectives, person nouns such as
maman, veuve, fils — is left untouched. ``neutralize="all-other"`` (ours, not the paper's) zeroes
the d_s component of every word except the definitional and two-form words.
A two-form entry whose two forms coincide (epicene) is not moved as a pair.
A word already used by an earlier pair is not moved twice (the later pair is skipped and listed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from geobias.alignment import Dictionary, ProcrustesAligner, load_dictionary
from geobias.choices import Neutralize
from geobias.directions.subspace import fitted_subspace
from geobias.errors import InputError
from geobias.mitigation._directions import (
    grammatical_direction,
    orthogonal_semantic,
    semantic_direction,
)
from geobias.mitigation.base import Mitigation
from geobias.mitigation.hard_debias import HardDebias
from geobias.mitigation.lexicon import GenderLexicon
from geobias.results import Result
from geobias.store import VectorStore
from geobias.store.merge import merged_store
from geobias.validation import check_choice

#: Which words eq. 2 neutralises (see the module docstring).


@dataclass(frozen=True)
class MitigationReport(Result):
    """What a fitted bilingual method learned.

    Attributes
    ----------
    method : str
    explained_variance_ratio : list of float
        Of the bilingual d_PCA.
    lda_cv_accuracy : float
    cos_pca_grammatical : float
        cos(d_PCA, d_g).
    n_pairs_shifted : int
        Two-form pairs moved by eq. 4 (nouns; adjectives too with ``shift_adjectives``).
    n_anchor_missing : int
        Shift EN pairs whose English word is out of vocabulary (anchored at the origin instead).
    neutralize : str
        ``"inanimate"`` (eq. 2 on inanimate nouns) or ``"all-other"`` (ours).
    n_neutralized : int or None
        Words of the fitted store whose d_s component eq. 2 removes (``None`` without a shift).
    pca_languages : list of str
        Languages whose definitional pairs fitted d_PCA.
    skipped_pairs : list
        Two-form entries not used (a form out of vocabulary, or a word reused).
    alignment : dict or None
    """

    method: str
    explained_variance_ratio: list[float]
    lda_cv_accuracy: float | None
    cos_pca_grammatical: float | None
    n_pairs_shifted: int
    n_anchor_missing: int
    skipped_pairs: list = field(default_factory=list)
    alignment: dict | None = None
    neutralize: str = "inanimate"
    n_neutralized: int | None = None
    pca_languages: list[str] = field(default_factory=list)


def shared_procrustes(store: VectorStore, en_store: VectorStore, dictionary: Dictionary | str, *,
                      refine: int = 0, shared: dict | None = None) -> tuple[ProcrustesAligner, VectorStore]:
    """``ProcrustesAligner(refine=refine).fit(store, en_store, dictionary)`` and its aligned
    ``store``, computed once per (store, en_store, dictionary, refine) objects in ``shared``.

    Parameters
    ----------
    store, en_store : VectorStore
    dictionary : Dictionary, path or "identical"
    refine : int, default 0
    shared : dict, optional
        Where the fit is remembered (keyed by the inputs' identities, which it keeps alive);
        ``None`` fits every time.

    Returns
    -------
    (ProcrustesAligner, VectorStore)
        The fitted aligner and ``aligner.transform(store)``.
    """
    key = ("procrustes", id(store), id(en_store), id(dictionary), refine)
    if shared is not None and key in shared:
        return shared[key][:2]
    dico = load_dictionary(dictionary, store, en_store)
    aligner = ProcrustesAligner(refine=refine).fit(store, en_store, dico)
    aligned = aligner.transform(store)
    if shared is not None:
        shared[key] = (aligner, aligned, store, en_store, dictionary)  # inputs pinned: ids stay theirs
    return aligner, aligned


class BilingualMitigation(Mitigation):
    """Shared pipeline of Zhou et al. (2019) §3 (see the module docstring).

    Parameters
    ----------
    lexicon : GenderLexicon, optional
        Lists of the gendered language (default: the project's lists for the store's language).
    en_lexicon : GenderLexicon, optional
        English lists (definitional pairs; gender-specific and equalise words for hard debias).
    refine : int, default 0
        Procrustes refinement rounds (see :class:`~geobias.alignment.ProcrustesAligner`).
    grammatical : GenderSubspace, fitted GrammaticalDirection or ndarray of shape (dim,), optional
        d_g (the subspace's ``direction``) precomputed on the store passed to :meth:`fit` (before alignment); it is carried
        into the shared space by the alignment map (LDA is equivariant under rotations).
        Default: fitted here by LDA on the lexicon's nouns. Lets several methods share one fit.
    neutralize : {"inanimate", "all-other"}, default "inanimate"
        Which words eq. 2 applies to: the inanimate nouns (the paper), or every word except the
        definitional and two-form words (ours, kept for comparison; it also strips the semantic
        gender of person nouns such as maman, veuve, fils).
    shift_adjectives : bool, default False
        Also move the lexicon's two-form adjective pairs (``lexicon.two_form_adjectives``) by
        eq. 4, after the two-form nouns (ours, not the paper's: eq. 3–4 apply to nouns with both
        gender forms). Off by default because those adjectives are the seeds S_i of the word-pair
        translation task (§4.3): moving them edits the evaluation's own queries.

    Attributes
    ----------
    aligner_ : ProcrustesAligner or None
    en_debiaser_ : HardDebias or None
    direction_ : ndarray of shape (dim,), float64
        d_s (``None`` for De-Align, which does not shift).
    d_pca_, d_g_ : ndarray of shape (dim,) or None
    shift_pairs_ : list of (feminine, masculine, anchor_projection)
    neutralized_ : frozenset of str
        Words eq. 2 applies to (``neutralize="inanimate"``), in the fitted store's vocabulary.
    neutral_excluded_ : frozenset of str
        Words never neutralised (definitional and two-form words); with ``"all-other"`` every
        other word is neutralised.
    report_ : MitigationReport

    References
    ----------
    Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019). Examining Gender Bias in Languages
    with Grammatical Gender. EMNLP-IJCNLP. §3.1 (d_PCA, d_g, d_s), §3.2 eq. 2–4 (Shift), §3.3 (De-Align,
    Hybrid). Bolukbasi et al. (2016), §5 (hard debias of the English side). Conneau et al.
    (2018), §2 (Procrustes alignment).
    """

    debias_english: ClassVar[bool] = False
    anchor: ClassVar[str | None] = None  # None (no shift), "origin", "english"
    bilingual_pca: ClassVar[bool] = True  # d_PCA from both languages' definitional pairs
    needs_english = "required"
    needs_dictionary = "optional"
    grammatical_gender = "required"
    keeps_grammar = True  # d_s is orthogonalised to d_g (Shift); a method without a shift overrides it

    def __init__(self, *, lexicon: GenderLexicon | None = None, en_lexicon: GenderLexicon | None = None,
                 refine: int = 0, grammatical=None, neutralize: str = "inanimate",
                 shift_adjectives: bool = False):
        self.lexicon = lexicon
        self.en_lexicon = en_lexicon
        self.refine = refine
        self.grammatical = grammatical
        self.neutralize = neutralize
        self.shift_adjectives = shift_adjectives

    @classmethod
    def from_fit_pairs(cls, fit_pairs, *, lang: str, grammatical=None, nouns=((), ()), two_form=(),
                       random_state: int = 0) -> BilingualMitigation:
        """See :meth:`Mitigation.from_fit_pairs`: d_PCA from ``fit_pairs``, eq. 2 on ``nouns``, the
        shift on ``two_form``; ``grammatical`` is d_g of the (unaligned) gendered store."""
        lexicon = GenderLexicon(lang, list(fit_pairs), list(nouns[0]), list(nouns[1]), list(two_form))
        return cls(lexicon=lexicon, grammatical=grammatical)

    # ------------------------------------------------------------------ fit
    def fit(self, store: VectorStore, *, en: VectorStore | None = None,
            dictionary: Dictionary | str | None = None) -> BilingualMitigation:
        """Fit on the gendered-language ``store`` and the English ``en``.

        Parameters
        ----------
        store : VectorStore
            The gendered language (original, unaligned unless ``dictionary`` is None).
        en : VectorStore, optional
            English. Required except for Shift Ori, which then works monolingually.
        dictionary : Dictionary, path or "identical", optional
            Source → English pairs for Procrustes; required by De-Align and Hybrid.

        Returns
        -------
        BilingualMitigation
            ``self``, fitted.

        Raises
        ------
        InputError
            ``store`` is English (these methods mitigate a gendered language; use
            :class:`HardDebias` for English), missing English store or dictionary, dimension
            mismatch, empty word lists, no dictionary pair in vocabulary.
        """
        self._fit(store, en, dictionary)
        return self

    def fit_transform_pair(self, store: VectorStore, *, en: VectorStore | None = None,
                           dictionary: Dictionary | str | None = None,
                           shared: dict | None = None) -> tuple[VectorStore, VectorStore | None]:
        """:meth:`fit`, then :meth:`transform_pair` of the same stores, reusing what fitting
        computed (the aligned store, the debiased English) instead of computing it again.

        Parameters
        ----------
        store, en_store, dictionary
            As :meth:`fit`.
        shared : dict, optional
            One dict passed to every method fitted on the same input objects (``geobias
            evaluate``): the English hard debias and each Procrustes fit (with its aligned store)
            are computed once per distinct input (keyed by object identity; the dict keeps the
            inputs alive) and reused by the next method. Deterministic fits: the results are the
            ones computed without it. See :func:`shared_procrustes`.

        Returns
        -------
        (VectorStore, VectorStore or None)
            Equal to ``fit(store, en=en, dictionary=dictionary).transform_pair(store, en)``.

        Raises
        ------
        InputError
            As :meth:`fit`.
        """
        en_store = en
        aligned, en_out = self._fit(store, en_store, dictionary, shared=shared)
        if self.direction_ is not None:
            out = self.apply_shift(aligned)
        else:
            out = aligned if aligned is not store else store.with_vectors(store.vectors, note=self.name)
        if en_store is None:
            return out, None
        if en_store.lang == "en" and self.lang_ != "en":
            en_side = en_out if self.en_debiaser_ is not None else en_store.with_vectors(
                en_store.vectors, note=f"{self.name} (English unchanged)")
        else:
            en_side = self.transform(en_store)
        return out, en_side

    def _fit(self, store: VectorStore, en_store: VectorStore | None,
             dictionary: Dictionary | str | None, *, shared: dict | None = None
             ) -> tuple[VectorStore, VectorStore | None]:
        """The body of :meth:`fit`; returns the aligned gendered store and the English output."""
        if store.lang == "en" and self.lexicon is None:
            raise InputError(
                f"{self.name} mitigates a gendered language (fr, es, de) in its bilingual space with English; "
                "for English vectors use hard-debias"
            )
        if en_store is None and (self.anchor == "english" or self.debias_english):
            raise InputError(f"{self.name} needs the English vectors (--en-vectors)")
        if dictionary is None and self.debias_english:
            raise InputError(f"{self.name} re-aligns to the debiased English and needs a bilingual dictionary")
        if en_store is not None and en_store.dim != store.dim:
            raise InputError(f"dimensions differ: {store.lang} {store.dim}, en {en_store.dim}")
        check_choice("neutralize", self.neutralize, Neutralize)
        lex = self.lexicon or GenderLexicon.for_language(store.lang or "fr")
        en_lex = self.en_lexicon
        if en_store is not None and en_lex is None:
            en_lex = GenderLexicon.for_language("en")
        self.lang_ = store.lang
        # 1. English side
        self.en_debiaser_ = None
        en_out = en_store
        if self.debias_english:
            key = ("hard-debias", id(en_store), id(en_lex))
            if shared is not None and key in shared:
                self.en_debiaser_, en_out = shared[key][:2]
            else:
                self.en_debiaser_ = HardDebias(lexicon=en_lex).fit(en_store)
                en_out = self.en_debiaser_.transform(en_store)
                if shared is not None:
                    shared[key] = (self.en_debiaser_, en_out, en_store, en_lex)  # inputs pinned: ids stay theirs
        # 2. alignment
        self.aligner_ = None
        aligned = store
        if dictionary is not None:
            if en_out is None:
                raise InputError("a dictionary was given but no English vectors to align to")
            self.aligner_, aligned = shared_procrustes(store, en_out, dictionary, refine=self.refine, shared=shared)
        # 3. shift
        self.direction_ = self.d_pca_ = self.d_g_ = None
        self.shift_pairs_: list[tuple[str, str, float]] = []
        skipped: list = []
        evr, cv, cos_pg = [], None, None
        n_missing_anchor = 0
        excluded = {w for p in lex.definitional_pairs for w in p}
        if self.anchor is not None:
            parts = [(f"{store.lang or 'src'}:", aligned, [w for p in lex.definitional_pairs for w in p])]
            pairs = [(f"{store.lang or 'src'}:{f}", f"{store.lang or 'src'}:{m}") for f, m in lex.definitional_pairs]
            pca_langs = [store.lang or "src"]
            if self.bilingual_pca and en_out is not None and en_lex is not None:
                pca_langs.append("en")
                parts.append(("en:", en_out, [w for p in en_lex.definitional_pairs for w in p]))
                pairs += [(f"en:{f}", f"en:{m}") for f, m in en_lex.definitional_pairs]
            merged = merged_store(parts)
            pairs = [p for p in pairs if p[0] in merged and p[1] in merged]
            d_pca = semantic_direction(merged, pairs)
            self.d_pca_ = d_pca.direction.astype(np.float64)
            evr = [float(v) for v in d_pca.explained_variance_ratio]
            if self.grammatical is None:
                d_g = grammatical_direction(aligned, lex.masculine_nouns, lex.feminine_nouns)
                self.d_g_, cv = d_g.direction.astype(np.float64), d_g.cv_accuracy
            else:
                given = fitted_subspace(self.grammatical)
                if given is not None:
                    d_g, cv = given.direction.astype(np.float64), given.cv_accuracy
                else:
                    d_g, cv = np.asarray(self.grammatical, dtype=np.float64), None
                if d_g.shape != (store.dim,):
                    raise InputError(f"grammatical direction has shape {d_g.shape}; expected ({store.dim},)")
                if self.aligner_ is not None:
                    d_g = d_g @ self.aligner_.W_
                self.d_g_ = d_g / np.linalg.norm(d_g)
            cos_pg = float(self.d_pca_ @ self.d_g_)
            self.direction_ = orthogonal_semantic(self.d_pca_, self.d_g_)
            used: set[str] = set()
            moved = list(lex.two_form) + (list(lex.two_form_adjectives) if self.shift_adjectives else [])
            for f, m, e in moved:
                if f == m:
                    continue  # epicene: neutral
                if f not in aligned or m not in aligned:
                    skipped.append((f, m, e, "out of vocabulary"))
                    continue
                if f in used or m in used:
                    skipped.append((f, m, e, "word already in another pair"))
                    excluded |= {f, m}
                    continue
                a = 0.0
                if self.anchor == "english":
                    if en_out is not None and e in en_out:
                        a = float(en_out[e].astype(np.float64) @ self.direction_)
                    else:
                        n_missing_anchor += 1
                used |= {f, m}
                self.shift_pairs_.append((f, m, a))
            excluded |= used
            excluded |= {w for t in lex.two_form_adjectives for w in t[:2]}  # never neutralised
        self.neutral_excluded_ = frozenset(excluded)
        self.neutralized_ = frozenset()
        n_neutral = None
        if self.anchor is not None:
            if self.neutralize == "inanimate":
                self.neutralized_ = frozenset(w for w in lex.inanimate_nouns()
                                              if w in aligned and w not in excluded)
                n_neutral = len(self.neutralized_)
            else:
                n_neutral = sum(1 for w in aligned.words if w not in excluded)
        self.report_ = MitigationReport(
            method=self.name,
            explained_variance_ratio=list(evr),
            lda_cv_accuracy=cv,
            cos_pca_grammatical=cos_pg,
            n_pairs_shifted=len(self.shift_pairs_),
            n_anchor_missing=n_missing_anchor,
            skipped_pairs=skipped,
            alignment=self.aligner_.result_.to_dict() if self.aligner_ is not None else None,
            neutralize=self.neutralize,
            n_neutralized=n_neutral,
            pca_languages=pca_langs if self.anchor is not None else [],
        )
        self.fitted_ = True
        return aligned, en_out

    # ------------------------------------------------------------------ transform
    def transform(self, store: VectorStore) -> VectorStore:
        """The mitigated version of ``store`` (a new store; the input is unchanged).

        A store whose language is ``"en"`` (and differs from the fitted gendered language) gets
        the English side of the method (hard-debiased for De-Align/Hybrid, an unchanged copy
        otherwise); any other store gets the gendered side: aligned, then shifted.

        Parameters
        ----------
        store : VectorStore
            The gendered store passed to :meth:`fit`, or the English one.

        Returns
        -------
        VectorStore
            Same words and order, float32. Aligned rows are unit-normalised (Procrustes runs on
            unit rows); shifted rows are not re-normalised (eq. 2 and 4 are linear moves).

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InputError
            Dimension differs from the fitted one.
        """
        self._check_fitted()
        if store.lang == "en" and self.lang_ != "en":
            if self.en_debiaser_ is not None:
                return self.en_debiaser_.transform(store)
            return store.with_vectors(store.vectors, note=f"{self.name} (English unchanged)")
        out = self.aligner_.transform(store) if self.aligner_ is not None else store
        if self.direction_ is None:
            return out if out is not store else store.with_vectors(store.vectors, note=self.name)
        return self.apply_shift(out)

    def apply_shift(self, out: VectorStore) -> VectorStore:
        """The Shift step alone (eq. 2 and 4) on a store already in the shared space.

        Neutralised words (the inanimate nouns, or with ``neutralize="all-other"`` every word
        except the definitional and two-form ones): w ← w − <w, d_s> d_s (eq. 2). Each two-form pair (w_m, w_f) with anchor
        projection a = <anchor, d_s> (0 for Shift Ori): both move by
        δ = (2a − <w_m, d_s> − <w_f, d_s>)/2 along d_s (eq. 4), so that
        <w_m, d_s> + <w_f, d_s> = 2a afterwards. Idempotent: a second application changes rows
        only by float32 rounding.

        Parameters
        ----------
        out : VectorStore
            In the shared space (already aligned), of dimension ``len(direction_)``.

        Returns
        -------
        VectorStore
            Same words and order, float32 (computed in float64).

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InputError
            Dimension differs from the fitted direction's.
        """
        self._check_fitted()
        if self.direction_ is None:
            return out.with_vectors(out.vectors, note=self.name)
        if out.dim != len(self.direction_):
            raise InputError(f"store dimension {out.dim} differs from the fitted direction's {len(self.direction_)}")
        d = self.direction_
        v = np.array(out.vectors, dtype=np.float64)
        idx = out.index
        if self.neutralize == "inanimate":
            neutral = np.zeros(len(out), dtype=bool)
            neutral[[idx[w] for w in self.neutralized_ if w in idx]] = True
        else:
            neutral = np.ones(len(out), dtype=bool)
            neutral[[idx[w] for w in self.neutral_excluded_ if w in idx]] = False
        v[neutral] -= np.outer(v[neutral] @ d, d)  # eq. 2
        pairs = [(idx[f], idx[m], a) for f, m, a in self.shift_pairs_ if f in idx and m in idx]
        if pairs:
            fi = np.array([p[0] for p in pairs])
            mi = np.array([p[1] for p in pairs])
            a = np.array([p[2] for p in pairs])
            delta = (2 * a - v[mi] @ d - v[fi] @ d) / 2  # eq. 4
            v[mi] += np.outer(delta, d)
            v[fi] += np.outer(delta, d)
        return out.with_vectors(v.astype(np.float32), note=self.name)

    @property
    def dimensions_removed_(self) -> int:
        """1 when the method shifts along d_s, 0 for De-Align (a rotation)."""
        return 1 if self.direction_ is not None else 0

    def transform_pair(self, store: VectorStore, en_store: VectorStore | None) -> tuple[VectorStore, VectorStore | None]:
        """``(transform(store), transform(en_store))``; the English side is ``None`` when
        ``en_store`` is None."""
        return self.transform(store), (self.transform(en_store) if en_store is not None else None)


class ShiftOri(BilingualMitigation):
    """Shift with the origin as anchor (Zhou et al. 2019, §3.2, eq. 2–4 with a = 0).

    Monolingual (§3.2): d_PCA uses the gendered language's own definitional pairs only, with or
    without an English store (an English store and dictionary only align the result).
    """

    name = "shift-ori"
    anchor = "origin"
    bilingual_pca = False
    needs_english = "optional"


class ShiftEN(BilingualMitigation):
    """Shift with the aligned English word as anchor (Zhou et al. 2019, §3.2, eq. 4 with
    a = the English translation; a pair whose English word is out of vocabulary is anchored at
    the origin and counted in ``report_.n_anchor_missing``)."""

    name = "shift-en"
    anchor = "english"


class DeAlign(BilingualMitigation):
    """Hard-debias English (Bolukbasi et al. 2016, §5), then align the gendered language to it
    by Procrustes on the dictionary (Zhou et al. 2019, §3.3). No shift."""

    name = "de-align"
    debias_english = True
    changes_english = True
    needs_dictionary = "required"
    keeps_grammar = False  # no shift: the gendered language is only rotated


class HybridOri(BilingualMitigation):
    """De-Align, then Shift with the origin as anchor (Zhou et al. 2019, §3.3)."""

    name = "hybrid-ori"
    anchor = "origin"
    debias_english = True
    changes_english = True
    needs_dictionary = "required"


class HybridEN(BilingualMitigation):
    """De-Align, then Shift with the (debiased) aligned English word as anchor (Zhou et al.
    2019, §3.3, eq. 2–4)."""

    name = "hybrid-en"
    anchor = "english"
    debias_english = True
    changes_english = True
    needs_dictionary = "required"
