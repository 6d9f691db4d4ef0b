"""One word query for every association metric: target sets, attribute sets, and the lost-vocabulary rule.

WEFE calls it a ``Query``; in geobias it is :class:`WordQuery`. WEAT, MWEAT, RND, RNSB, ECT, MAC,
RIPA and SEAT all take one, and :meth:`WordQuery.resolve` looks its words up in a store under one
out-of-vocabulary policy, so every metric and every Python caller gets the same rule:

* ``oov="raise"``: any missing word stops the metric (:class:`~geobias.errors.OutOfVocabularyError`
  names them all); nothing is lost, so the share check below has nothing to check.
* ``oov="ignore"``: missing words are left out and listed in the result, but **each set on its own**
  may lose at most ``lost_vocabulary_threshold`` of its words (default 0.2, WEFE 1.0.1's
  ``lost_vocabulary_threshold``); a set the store cut below its minimum size
  (:data:`MIN_TARGET_WORDS`, :data:`MIN_ATTRIBUTE_WORDS`, or the size given when smaller) is refused
  the same way. Above it, :class:`LostVocabularyError` says which set lost how much. A paired set
  (MWEAT's two-form words, RIPA's word pairs) counts pairs: a pair with a missing word is lost
  whole (listed in ``dropped_pairs``).

The guard exists because a WEAT-style statistic is a mean over a set's words: on two of eight male
names it describes those two names, not the set the test names.

Examples
--------
>>> import numpy as np
>>> from geobias.store import VectorStore
>>> store = VectorStore(["a", "b", "c", "d", "e"], np.eye(5, dtype=np.float32))
>>> q = WordQuery(["a", "b"], ["c", "z"], ["e"], ["d"])
>>> q.lost_shares(store)
{'X': (0, 2), 'Y': (1, 2), 'A': (0, 1), 'B': (0, 1)}
>>> q.resolve(store, oov="ignore")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
geobias.query.LostVocabularyError: the test on this store: 50% of Y (1 of 2 words) is out of vocabulary ...
>>> lenient = WordQuery(["a", "b"], ["c", "z"], ["e"], ["d"], lost_vocabulary_threshold=1, minimum_words=1)
>>> r = lenient.resolve(store, oov="ignore")
>>> r.y_words, r.missing
(['c'], ['z'])
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from geobias.choices import OOVPolicy, Similarity
from geobias.errors import InputError, OutOfVocabularyError
from geobias.validation import check_choice

if TYPE_CHECKING:  # numpy is imported on use: the command layer (and `geobias --help`) imports this module
    import numpy as np

__all__ = ["LOST_VOCABULARY_THRESHOLD", "MIN_ATTRIBUTE_WORDS", "MIN_TARGET_WORDS", "REPORT_LOST", "LostVocabularyError",
           "ResolvedQuery", "WordQuery", "check_lost_vocabulary", "lost_shares", "lookup_sets"]

#: WEFE's default: refuse when more than 20% of a set's words are missing.
LOST_VOCABULARY_THRESHOLD = 0.2
#: Fewest words a target set may keep (a mean over one word has no spread; two words per set give
#: an exact permutation test with 6 partitions).
MIN_TARGET_WORDS = 2
#: Fewest words an attribute set may keep.
MIN_ATTRIBUTE_WORDS = 2
#: Query options of an evaluation table's rows that report what they lost instead of refusing: a
#: control or a grid cell keeps its figure on the words found, and its result lists the missing ones
#: (as these tables always did). ``WordQuery(X, Y, A, B, **REPORT_LOST)``.
REPORT_LOST = {"lost_vocabulary_threshold": 1.0, "minimum_words": 1}


class LostVocabularyError(InputError):
    """A word set lost more of its words to the store's vocabulary than the query allows.

    The CLI prints it on one line and exits 1; the service answers it as a 4xx error.

    Attributes
    ----------
    lost : dict of str to (int, int)
        ``{set name: (missing, given)}`` of every set above the threshold or below its minimum size.
    threshold : float
    """

    def __init__(self, message: str, lost: Mapping[str, tuple[int, int]], threshold: float):
        super().__init__(message)
        self.lost = dict(lost)
        self.threshold = threshold


def lost_shares(sets: Mapping[str, Sequence[str]], store: Container[str]) -> dict[str, tuple[int, int]]:
    """``{set name: (missing words, words given)}`` for each word set against ``store`` (distinct words)."""
    out = {}
    for name, words in sets.items():
        unique = list(dict.fromkeys(words))
        out[name] = (sum(w not in store for w in unique), len(unique))
    return out


def check_lost_vocabulary(
    counts: Mapping[str, tuple[int, int]],
    threshold: float,
    *,
    minimum: Mapping[str, int] | None = None,
    test: str = "the test",
    store: str = "this store",
    unit: str | Mapping[str, str] = "words",
) -> None:
    """Refuse a query whose word sets lost too much to the store's vocabulary.

    Parameters
    ----------
    counts : mapping of str to (int, int)
        ``{set name: (missing, given)}`` (see :func:`lost_shares`).
    threshold : float in [0, 1]
        Largest lost share allowed per set.
    minimum : mapping of str to int, optional
        Fewest items a set must keep, per set name (a set given with fewer is only refused when it
        lost an item).
    test, store : str
        Named in the message (``"WEAT career-family"``, ``"en-w2v-gnews"``).
    unit : str or mapping of str to str, default "words"
        What a set counts (``"pairs"``), or that per set name.

    Raises
    ------
    LostVocabularyError
        Some set's lost share exceeds ``threshold`` or it keeps fewer than its minimum; the one-line
        message gives each such set's share and counts, and how to proceed.
    """
    minimum = minimum or {}

    def too_small(name: str, m: int, n: int) -> bool:
        return m > 0 and n - m < min(minimum.get(name, 0), n)

    bad = {name: (m, n) for name, (m, n) in counts.items() if n and (m / n > threshold or too_small(name, m, n))}
    if not bad:
        return
    units = {name: unit if isinstance(unit, str) else unit.get(name, "words") for name in counts}
    parts = [f"{m / n:.0%} of {name} ({m} of {n} {units[name]})" for name, (m, n) in bad.items()]
    small = [name for name, (m, n) in bad.items() if too_small(name, m, n) and m / n <= threshold]
    why = f"the lost-vocabulary threshold is {threshold:.0%} per set"
    if small:
        why += "; " + ", ".join(f"{name} needs at least {minimum[name]}" for name in small)
    total_m = sum(m for m, _ in counts.values())
    total_n = sum(n for _, n in counts.values())
    raise LostVocabularyError(
        f"{test} on {store}: {' and '.join(parts)} {'is' if len(parts) == 1 else 'are'} out of vocabulary "
        f"({total_m} of {total_n} {'items' if len(set(units.values())) > 1 else units[next(iter(units))]} overall); "
        f"{why}. Use a store that has these words (`vectors`), or raise `lost_vocabulary_threshold` to accept a "
        "statistic on the words left",
        bad, threshold,
    )


def lookup_sets(
    store, sets: dict[str, Sequence[str]], *, oov: str, similarity: str
) -> tuple[dict[str, np.ndarray], dict[str, list[str]], list[str]]:
    """Rows of several named word sets under one OOV policy (no share check: see :meth:`WordQuery.resolve`).

    Returns
    -------
    vectors : dict name → ndarray of shape (n_found, dim), float32
        Unit rows for ``"cosine"``, raw rows for ``"dot"``.
    found : dict name → list of str
    missing : list of str
        Every missing word over all sets, in order, without duplicates.

    Raises
    ------
    OutOfVocabularyError
        ``oov="raise"`` and any word of any set is missing (all of them are named).
    InputError
        A set is empty or all its words are missing.
    """
    check_choice("oov", oov, OOVPolicy)
    check_choice("similarity", similarity, Similarity)
    missing: list[str] = []
    seen: set[str] = set()
    for name, words in sets.items():
        if len(words) == 0:
            raise InputError(f"word list {name} is empty")
        for w in words:
            if w not in store and w not in seen:
                seen.add(w)
                missing.append(w)
    if missing and oov == "raise":
        raise OutOfVocabularyError(missing, "in " + "/".join(sets))
    vectors, found = {}, {}
    for name, words in sets.items():
        lk = store.lookup(words, oov="ignore", unit=similarity == "cosine")
        if not lk.words:
            raise InputError(f"all {len(words)} words of word list {name} are out of vocabulary")
        vectors[name], found[name] = lk.vectors, lk.words
    return vectors, found, missing


def _words(value: Sequence[str] | None, role: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        raise InputError(f"word set {role} is one string; give a list of words")
    out = tuple(value)
    if not all(isinstance(w, str) for w in out):
        raise InputError(f"word set {role} holds something that is not a word")
    return out


@dataclass(frozen=True)
class WordQuery:
    """Two target sets (or one), two attribute sets, their names and the lost-vocabulary rule.

    Parameters
    ----------
    X, Y : sequence of str
        Target sets (``Y`` may be ``None`` for metrics that score one set: RND, RNSB, ECT, MAC, RIPA).
    A, B : sequence of str
        Attribute sets (e.g. male and female words).
    name : str, default "custom"
        The query's name in results and messages (a built-in test's name).
    paired : bool, default False
        ``X[i]`` and ``Y[i]`` are the masculine and feminine forms of one word (MWEAT, the grammatical
        variants): a pair with a missing form is lost whole, and counted as a pair.
    paired_attributes : bool, default False
        ``A[i]`` and ``B[i]`` are the two words of one pair (RIPA's relation pairs): lost as pairs.
    glosses : sequence of str, optional
        One label per pair (MWEAT's English gloss of each occupation).
    lost_vocabulary_threshold : float in [0, 1], default 0.2
        Largest share of any set that ``oov="ignore"`` may lose (WEFE 1.0.1's rule; 1 turns the
        share check off, the minimum sizes stay).
    set_names : 4 str, default ("X", "Y", "A", "B")
        How messages name the sets.
    minimum_words : int, default 2
        Fewest words (pairs) a set that lost some may keep (:data:`MIN_TARGET_WORDS`; a set given
        with fewer is only refused when it lost one). 1 turns the size check off.

    Raises
    ------
    InputError
        A set given as one string, X and Y of different lengths when paired, a threshold outside [0, 1].

    Examples
    --------
    >>> WordQuery(["math"], ["art"], ["he"], ["she"], name="tiny").sizes
    {'X': 1, 'Y': 1, 'A': 1, 'B': 1}
    """

    X: Sequence[str]
    Y: Sequence[str] | None
    A: Sequence[str]
    B: Sequence[str]
    name: str = "custom"
    paired: bool = False
    paired_attributes: bool = False
    glosses: Sequence[str] | None = None
    lost_vocabulary_threshold: float = LOST_VOCABULARY_THRESHOLD
    set_names: tuple[str, str, str, str] = ("X", "Y", "A", "B")
    minimum_words: int = MIN_TARGET_WORDS

    def __post_init__(self):
        for role in ("X", "Y", "A", "B"):
            object.__setattr__(self, role, _words(getattr(self, role), role))
        object.__setattr__(self, "glosses", _words(self.glosses, "glosses"))
        t = self.lost_vocabulary_threshold
        if not isinstance(t, (int, float)) or not 0 <= t <= 1:
            raise InputError(f"lost_vocabulary_threshold must be a share in [0, 1]; got {t!r}")
        if self.paired and (self.Y is None or len(self.X) != len(self.Y)):
            raise InputError("a paired query needs the masculine forms (X) and the feminine forms (Y) of the same "
                             f"words, paired by position; got {len(self.X)} and {0 if self.Y is None else len(self.Y)}")
        if self.paired_attributes and len(self.A) != len(self.B):
            raise InputError(f"paired attribute sets need the same length; got {len(self.A)} and {len(self.B)}")
        if self.glosses is not None and len(self.glosses) != len(self.X):
            raise InputError(f"{len(self.glosses)} glosses for {len(self.X)} pairs")
        self._refuse_shared_words()

    def _refuse_shared_words(self) -> None:
        """A word in two sets: the same word as both targets (unpaired), as both attributes, or as a
        target and an attribute. Its vector would count on both sides of the comparison (a target
        against itself, cosine 1), and a permutation test would move it between the sets it is in:
        one clear refusal instead of a figure that mixes the two. A paired query's forms may
        coincide (an epicene word, *journaliste*, is its own feminine), and relation pairs (RIPA's,
        ``paired_attributes``) define a direction rather than a side: scoring a pair's own words on
        it is a check RIPA's users make, so those are not refused."""
        names = dict(zip(("X", "Y", "A", "B"), self.set_names, strict=True))
        seen: dict[str, str] = {}
        groups = [("X",), ("Y",)] if not self.paired else [("X", "Y")]
        if not self.paired_attributes:
            groups += [("A",), ("B",)]
        for group in groups:
            words = {w: role for role in group for w in (getattr(self, role) or ())}
            for w, role in words.items():
                if w in seen:  # an earlier group: another set
                    raise InputError(f"word {w!r} is in {names[seen[w]]} and in {names[role]}: a word may be "
                                     "in one set only")
            for w, role in words.items():
                seen.setdefault(w, role)

    # -- builders ---------------------------------------------------------------------------------
    @classmethod
    def two_form(cls, words: Sequence[Any], A: Sequence[str], B: Sequence[str], **kwargs) -> WordQuery:
        """A paired query from two-form words (``TwoFormWord`` or ``(feminine, masculine[, english])``).

        X holds the masculine forms, Y the feminine forms, ``glosses`` the English words (the
        masculine form when none is given). Used by MWEAT (Zhou et al. 2019, eq. 1).

        Examples
        --------
        >>> q = WordQuery.two_form([("infirmière", "infirmier", "nurse")], ["il"], ["elle"])
        >>> q.X, q.Y, q.glosses
        (('infirmier',), ('infirmière',), ('nurse',))
        """
        rows = []
        for o in words:
            if hasattr(o, "feminine"):
                rows.append((o.feminine, o.masculine, getattr(o, "english", None) or o.masculine))
            else:
                t = tuple(o)
                if len(t) not in (2, 3):
                    raise InputError(f"a two-form word is (feminine, masculine[, english]); got {o!r}")
                rows.append((t[0], t[1], t[2] if len(t) == 3 else t[1]))
        if not rows:
            raise InputError("the occupation list is empty")
        kwargs.setdefault("set_names", ("the occupation pairs (X and Y)", "the occupation pairs (X and Y)",
                                        "A (male words)", "B (female words)"))
        return cls([m for _, m, _ in rows], [f for f, _, _ in rows], A, B, paired=True,
                   glosses=[e for _, _, e in rows], **kwargs)

    @classmethod
    def with_pairs(cls, targets: Sequence[str], pairs: Sequence[tuple[str, str]], **kwargs) -> WordQuery:
        """One target set scored against ordered word pairs (RIPA): A = the first words, B = the second."""
        pairs = [tuple(p) for p in pairs]
        if any(len(p) != 2 for p in pairs):
            raise InputError("each pair is (first, second)")
        kwargs.setdefault("set_names", ("the targets", "", "the pairs", "the pairs"))
        kwargs.setdefault("minimum_words", 1)  # RIPA scores each word on its own: one target or pair is enough
        return cls(targets, None, [a for a, _ in pairs], [b for _, b in pairs], paired_attributes=True, **kwargs)

    def replace(self, **changes) -> WordQuery:
        """A copy with some fields changed (``dataclasses.replace``)."""
        from dataclasses import replace

        return replace(self, **changes)

    # -- facts ------------------------------------------------------------------------------------
    @property
    def sizes(self) -> dict[str, int]:
        """Words given per set (``Y`` left out when absent)."""
        out = {"X": len(self.X)}
        if self.Y is not None:
            out["Y"] = len(self.Y)
        return {**out, "A": len(self.A), "B": len(self.B)}

    @property
    def words(self) -> list[str]:
        """Every word of the query without duplicates (what a store must hold): X, Y, A, B in order, or for a
        paired query each pair's masculine then feminine form first (the order messages list them in)."""
        if self.paired:
            targets = [w for m, f in zip(self.X, self.Y, strict=True) for w in (m, f)]
        else:
            targets = [*self.X, *(self.Y or ())]
        return list(dict.fromkeys([*targets, *self.A, *self.B]))

    def lost_shares(self, store: Container[str]) -> dict[str, tuple[int, int]]:
        """``{set: (lost, given)}``: distinct words per set, or pairs for a paired part.

        The keys are ``set_names`` (a paired X/Y is one entry, as are paired A/B).
        """
        nx, ny, na, nb = self.set_names
        out: dict[str, tuple[int, int]] = {}
        if self.paired:
            lost = sum(m not in store or f not in store for m, f in zip(self.X, self.Y, strict=True))
            out[nx] = (lost, len(self.X))
        else:
            out.update(lost_shares({nx: self.X, **({ny: self.Y} if self.Y is not None else {})}, store))
        if self.paired_attributes:
            out[na] = (sum(a not in store or b not in store for a, b in zip(self.A, self.B, strict=True)), len(self.A))
        else:
            out.update(lost_shares({na: self.A, nb: self.B}, store))
        return out

    def check(self, store: Container[str], *, test: str | None = None, store_label: str | None = None) -> None:
        """Apply the lost-vocabulary rule (see the module docstring); raise :class:`LostVocabularyError`."""
        nx, ny, na, nb = self.set_names
        counts = self.lost_shares(store)
        minimum = {nx: self.minimum_words, ny: self.minimum_words, na: self.minimum_words, nb: self.minimum_words}
        unit = {k: "pairs" for k in ((nx,) if self.paired else ()) + ((na,) if self.paired_attributes else ())}
        check_lost_vocabulary(counts, self.lost_vocabulary_threshold, minimum=minimum,
                              test=test or (self.name if self.name != "custom" else "the test"),
                              store=store_label or _store_label(store), unit=unit)

    # -- resolution -------------------------------------------------------------------------------
    def resolve(self, store, *, oov: Literal["raise", "ignore"] = "raise",
                similarity: Literal["cosine", "dot"] = "cosine", paired: bool | None = None,
                test: str | None = None, store_label: str | None = None) -> ResolvedQuery:
        """Look the query's words up in ``store`` and apply the vocabulary rule.

        Parameters
        ----------
        store : VectorStore
        oov : {"raise", "ignore"}, default "raise"
        similarity : {"cosine", "dot"}, default "cosine"
            ``"cosine"`` gives unit rows, ``"dot"`` raw rows.
        paired : bool, optional
            Override ``self.paired`` (a metric's english variant reads a paired query as two sets).
        test, store_label : str, optional
            How messages name the test and the store (default: the query's name, the store's source).

        Returns
        -------
        ResolvedQuery
            float64 rows per set and the words used.

        Raises
        ------
        OutOfVocabularyError
            ``oov="raise"`` and a word is missing (all are named).
        LostVocabularyError
            ``oov="ignore"`` and a set lost more than ``lost_vocabulary_threshold`` or fell below its minimum.
        InputError
            An empty set, a set entirely out of vocabulary, no pair with both forms in the vocabulary.
        """
        check_choice("oov", oov, OOVPolicy)
        check_choice("similarity", similarity, Similarity)
        paired = self.paired if paired is None else paired
        query = self if paired == self.paired else self.replace(paired=paired, glosses=None)
        if paired and (self.Y is None or len(self.X) != len(self.Y)):
            raise InputError("the grammatical variant needs the masculine forms (X) and the feminine forms (Y) of "
                             "the same words, paired by position")
        for role in ("X", "A", "B") + (("Y",) if self.Y is not None else ()):
            if len(getattr(self, role)) == 0:
                raise InputError(f"word list {role} is empty")
        if oov == "raise":
            missing = [w for w in self.words if w not in store]
            if missing:
                raise OutOfVocabularyError(missing, "in " + "/".join(self.sizes))
        else:
            query.check(store, test=test, store_label=store_label)
        dropped: list[tuple[str, str]] = []
        missing: list[str] = []
        if paired:
            present = [m in store and f in store for m, f in zip(self.X, self.Y, strict=True)]
            keep = [i for i, ok in enumerate(present) if ok]
            dropped = [(self.X[i], self.Y[i]) for i, ok in enumerate(present) if not ok]
            missing = [w for m, f in dropped for w in dict.fromkeys((m, f)) if w not in store]
            if not keep:
                raise InputError(f"all {len(self.X)} two-form words have a form out of vocabulary; no pair to score")
            xs, ys = [self.X[i] for i in keep], [self.Y[i] for i in keep]
            glosses = None if self.glosses is None else [self.glosses[i] for i in keep]
        else:
            xs, ys, glosses = list(self.X), None if self.Y is None else list(self.Y), None
        a_words, b_words = list(self.A), list(self.B)
        dropped_attr: list[tuple[str, str]] = []
        if self.paired_attributes:
            present_ab = [a in store and b in store for a, b in zip(a_words, b_words, strict=True)]
            keep_ab = [i for i, ok in enumerate(present_ab) if ok]
            dropped_attr = [(a_words[i], b_words[i]) for i, ok in enumerate(present_ab) if not ok]
            missing += [w for pair in dropped_attr for w in pair if w not in store]
            if not keep_ab:
                raise InputError(f"all {len(a_words)} word pairs have a word out of vocabulary")
            a_words, b_words = [a_words[i] for i in keep_ab], [b_words[i] for i in keep_ab]
        sets = {"X": xs, **({"Y": ys} if ys is not None else {}), "A": a_words, "B": b_words}
        vecs, found, more = lookup_sets(store, sets, oov="ignore", similarity=similarity)
        missing = list(dict.fromkeys(missing + more))
        import numpy as np

        f64 = {k: np.asarray(v, dtype=np.float64) for k, v in vecs.items()}
        return ResolvedQuery(
            query=query, x=f64["X"], y=f64.get("Y"), a=f64["A"], b=f64["B"],
            x_words=found["X"], y_words=found.get("Y", []), a_words=found["A"], b_words=found["B"],
            missing=missing, dropped_pairs=dropped, dropped_attribute_pairs=dropped_attr,
            glosses=glosses, similarity=similarity)


def _store_label(store) -> str:
    prov = getattr(store, "provenance", None) or {}
    return str(prov.get("source") or "this store")


@dataclass(frozen=True)
class ResolvedQuery:
    """A :class:`WordQuery` looked up in one store: float64 rows per set and the words behind them.

    ``x`` (n_x, dim), ``y`` (n_y, dim) or ``None``, ``a`` (n_a, dim), ``b`` (n_b, dim): unit rows for
    cosine similarity, raw rows for ``"dot"``. In a paired query ``x[i]``/``y[i]`` are one word's
    two forms (and ``glosses[i]`` its label); with paired attributes ``a[i]``/``b[i]`` one pair.
    """

    query: WordQuery
    x: np.ndarray
    y: np.ndarray | None
    a: np.ndarray
    b: np.ndarray
    x_words: list[str]
    y_words: list[str]
    a_words: list[str]
    b_words: list[str]
    missing: list[str] = field(default_factory=list)
    dropped_pairs: list[tuple[str, str]] = field(default_factory=list)
    dropped_attribute_pairs: list[tuple[str, str]] = field(default_factory=list)
    glosses: list[str] | None = None
    similarity: str = "cosine"

    @property
    def targets(self) -> np.ndarray:
        """X then Y, shape (n_x + n_y, dim)."""
        import numpy as np

        return self.x if self.y is None else np.concatenate([self.x, self.y])

    @property
    def target_words(self) -> list[str]:
        return [*self.x_words, *self.y_words]

    @property
    def paired(self) -> bool:
        return self.query.paired
