"""Bilingual dictionaries in MUSE format (one ``source target`` pair per line).

A source word may have several gold translations (one line each); word translation counts a
query as correct when *any* of them is retrieved (Conneau et al. 2018, MUSE evaluation).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from geobias.errors import InputError
from geobias.io.atomic import read_text
from geobias.store import VectorStore


@dataclass(frozen=True)
class Dictionary:
    """A bilingual dictionary: ordered ``(source, target)`` pairs, duplicates removed.

    Attributes
    ----------
    pairs : list of (str, str)
        In file order.
    source : str
        Where the pairs came from (a path, or ``"identical"``).
    """

    pairs: list[tuple[str, str]]
    source: str = "in-memory"

    def __len__(self) -> int:
        return len(self.pairs)

    def inverted(self) -> Dictionary:
        """The same pairs as ``(target, source)`` (for the reverse translation direction)."""
        return Dictionary([(t, s) for s, t in self.pairs], f"{self.source} (inverted)")


@dataclass(frozen=True)
class ResolvedDictionary:
    """A dictionary resolved against two stores.

    Attributes
    ----------
    src_rows, tgt_rows : ndarray of shape (n_pairs_in_vocab,), int64
        Row indices of the in-vocabulary pairs.
    n_pairs : int
        Pairs in the dictionary.
    n_oov_pairs : int
        Pairs dropped because the source or target word is out of vocabulary.
    oov_examples : list of (str, str)
        Up to 10 of those pairs.
    """

    src_rows: np.ndarray
    tgt_rows: np.ndarray
    n_pairs: int
    n_oov_pairs: int
    oov_examples: list[tuple[str, str]] = field(default_factory=list)


def read_dictionary(path: str | os.PathLike) -> Dictionary:
    """Read a MUSE-format bilingual dictionary.

    Each non-blank line holds exactly two whitespace-separated fields ``source target``
    (MUSE files use a space or a tab). Lines starting with ``#`` are comments. Exact duplicate
    pairs are kept once. Words are taken as written (no lower-casing, no accent stripping).

    Raises
    ------
    InputError
        The file does not exist (the message says how to install MUSE's dictionaries), is a directory, is not UTF-8 (:func:`geobias.io.atomic.read_text`),
        holds a line with other than two fields (the message names the line), or holds no pairs.
    """
    p = Path(path)
    if not p.exists():
        from geobias.io.atomic import shown
        from geobias.sources.datasets import missing_file_hint

        raise InputError(f"{shown(p)}: dictionary file not found; {missing_file_hint(p, 'muse-dictionary')}")
    pairs: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for lineno, line in enumerate(read_text(p, what="dictionary").splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        fields = text.split()
        if len(fields) != 2:
            raise InputError(
                f"{p}, line {lineno}: expected 2 fields 'source target', got {len(fields)}: {text[:60]!r}"
            )
        pair = (fields[0], fields[1])
        if pair not in seen:
            seen.add(pair)
            pairs.append(pair)
    if not pairs:
        raise InputError(f"{p}: the dictionary holds no pairs")
    return Dictionary(pairs, str(p))


def identical_dictionary(src: VectorStore, tgt: VectorStore, *, max_pairs: int | None = None) -> Dictionary:
    """Seed dictionary of identical strings present in both vocabularies (source order).

    Used by ``geobias align --dictionary identical`` for users without a dictionary
    (Artetxe et al. 2017; Conneau et al. 2018 use it as a baseline).

    Parameters
    ----------
    src, tgt : VectorStore
    max_pairs : int, optional
        Keep the first ``max_pairs`` shared strings (source vocabulary order, i.e. frequency
        order for word2vec/fastText files). Default: all.

    Returns
    -------
    Dictionary
        ``(w, w)`` pairs, ``source="identical"``.

    Raises
    ------
    InputError
        No string is shared by the two vocabularies.
    """
    shared = [w for w in src.words if w in tgt]
    if max_pairs is not None:
        shared = shared[:max_pairs]
    if not shared:
        raise InputError("the two vocabularies share no identical strings; pass --dictionary PATH")
    return Dictionary([(w, w) for w in shared], "identical")


def load_dictionary(spec: str | os.PathLike | Dictionary, src: VectorStore, tgt: VectorStore) -> Dictionary:
    """A :class:`Dictionary` from a path, the word ``"identical"``, or a Dictionary.

    Raises
    ------
    InputError
        See :func:`read_dictionary` and :func:`identical_dictionary`.
    """
    if isinstance(spec, Dictionary):
        return spec
    if str(spec) == "identical":
        return identical_dictionary(src, tgt)
    return read_dictionary(spec)


#: A dictionary is refused as given in the wrong language order when more than this many times as
#: many of its pairs are in vocabulary read target → source as read source → target. MUSE's files
#: read the right way have 4.5–9 times more pairs in vocabulary than read reversed (fr-en, en-fr on
#: fr-spacy-md / en-w2v-gnews; es-en, en-es on use-m3-es / use-m3-en), so a factor of 2 leaves a wide
#: margin on both sides; an identical-strings dictionary reads the same both ways (factor 1).
REVERSED_ORDER_FACTOR = 2


def check_language_order(dictionary: Dictionary, src: VectorStore, tgt: VectorStore, n_in_order: int) -> None:
    """Refuse a dictionary that fits the two vocabularies far better read the other way round.

    A MUSE file given in the wrong order (``en-fr`` where ``fr-en`` belongs) still has some pairs in
    vocabulary as given (identical strings, shared names), so "no pair in vocabulary" does not catch
    it; counting the pairs in vocabulary read target → source does.

    Parameters
    ----------
    dictionary : Dictionary
        ``(source, target)`` pairs as given.
    src, tgt : VectorStore
        The stores its source and target words are looked up in.
    n_in_order : int
        Pairs of ``dictionary`` with both words in vocabulary as given (the caller has counted them).

    Raises
    ------
    InputError
        More than :data:`REVERSED_ORDER_FACTOR` times as many pairs are in vocabulary reversed
        (source word in ``tgt``, target word in ``src``) as in order, or none either way. The
        message names the dictionary, both counts and the order expected.

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> fr = VectorStore(["chat", "chien", "paris"], np.eye(3, dtype=np.float32), lang="fr")
    >>> en = VectorStore(["cat", "dog", "paris"], np.eye(3, dtype=np.float32), lang="en")
    >>> en_fr = Dictionary([("cat", "chat"), ("dog", "chien"), ("paris", "paris")], "en-fr.txt")
    >>> check_language_order(en_fr.inverted(), fr, en, 3)  # fr → en as given: accepted
    >>> check_language_order(en_fr, fr, en, 1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geobias.errors.InputError: en-fr.txt looks reversed: 1 of its 3 pairs have the source word in the fr ...
    """
    n_reversed = sum(1 for s, t in dictionary.pairs if t in src.index and s in tgt.index)
    a, b = src.lang or "source", tgt.lang or "target"
    if n_reversed > REVERSED_ORDER_FACTOR * n_in_order:
        raise InputError(
            f"{dictionary.source} looks reversed: {n_in_order:,} of its {len(dictionary):,} pairs have the source "
            f"word in the {a} vocabulary and the target word in the {b} one, {n_reversed:,} the other way round; "
            f"give the {a}→{b} pairs ('{a} {b}' per line, e.g. MUSE's {a}-{b} file)"
        )
    if not n_in_order:
        raise InputError(
            f"none of the {len(dictionary)} dictionary pairs from {dictionary.source} has both words "
            "in the vocabularies (check the language order: source first, target second)"
        )


def resolve(dictionary: Dictionary, src: VectorStore, tgt: VectorStore) -> ResolvedDictionary:
    """Row indices of the pairs whose two words are both in vocabulary; count the others.

    Parameters
    ----------
    dictionary : Dictionary
        ``(source, target)`` pairs.
    src, tgt : VectorStore
        The source words are looked up in ``src``, the targets in ``tgt``.

    Returns
    -------
    ResolvedDictionary
        Out-of-vocabulary pairs are counted (``n_oov_pairs``, ``oov_examples``), never dropped
        silently.

    Raises
    ------
    InputError
        No pair has both words in vocabulary, or the dictionary looks given in the wrong
        language order (:func:`check_language_order`).
    """
    si, ti, oov = [], [], []
    for s, t in dictionary.pairs:
        a, b = src.index.get(s), tgt.index.get(t)
        if a is None or b is None:
            oov.append((s, t))
        else:
            si.append(a)
            ti.append(b)
    check_language_order(dictionary, src, tgt, len(si))
    return ResolvedDictionary(
        np.asarray(si, dtype=np.int64), np.asarray(ti, dtype=np.int64), len(dictionary), len(oov), oov[:10]
    )
