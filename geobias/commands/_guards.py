"""Guards on association tests: the share of each word set a store lost, and the set sizes a test needs.

A WEAT-style statistic is a mean over a set's words. When most of a set is out of the store's
vocabulary the number describes the few words left, not the set the test names (WEAT
career-family on two of eight male names). As WEFE does with its ``lost_vocabulary_threshold``,
every such command (``weat``, ``mweat``, ``ripa``) checks **each set on its own** before the
statistic is computed:

* the lost share of a set is ``missing words / words given`` (for MWEAT's two-form targets, the
  share of occupation pairs dropped because a form is missing);
* above ``lost_vocabulary_threshold`` (default :data:`LOST_VOCABULARY_THRESHOLD` = 0.2, WEFE's
  default) the command refuses with :class:`LostVocabularyError`, naming each offending set, its
  share and its counts, and how to proceed;
* whatever the threshold, a set that the store cut below its minimum size (:data:`MIN_TARGET_WORDS`
  per target set, :data:`MIN_ATTRIBUTE_WORDS` per attribute set, or the size given when smaller: a
  set you chose small is yours to choose) is refused the same way.

With ``oov="raise"`` nothing is lost silently (the metric stops at the first missing word), so the
guard does not run.

Examples
--------
>>> from geobias.store import VectorStore
>>> import numpy as np
>>> store = VectorStore(["a", "b", "c"], np.eye(3, dtype=np.float32))
>>> lost_shares({"X": ["a", "b", "z"]}, store)
{'X': (1, 3)}
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from typing import Annotated

from pydantic import Field

from geobias.errors import InputError

#: WEFE's default: refuse when more than 20% of a set's words are missing.
LOST_VOCABULARY_THRESHOLD = 0.2
#: Fewest words a target set may keep (a mean over one word has no spread; two words per set give
#: an exact permutation test with 6 partitions).
MIN_TARGET_WORDS = 2
#: Fewest words an attribute set may keep.
MIN_ATTRIBUTE_WORDS = 2

#: The parameter field: a share in [0, 1] (1 disables the share check; the minimum sizes stay).
LostVocabularyThreshold = Annotated[float, Field(
    ge=0, le=1, allow_inf_nan=False, description=(
        "Refuse when more than this share of any word set is out of the store's vocabulary (WEFE's "
        "lost_vocabulary_threshold; checked per set; 1 turns the check off)."))]


class LostVocabularyError(InputError):
    """A word set lost more of its words to the store's vocabulary than the test allows.

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
    """``{set name: (missing words, words given)}`` for each word set against ``store``."""
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
    """Refuse a test whose word sets lost too much to the store's vocabulary.

    Parameters
    ----------
    counts : mapping of str to (int, int)
        ``{set name: (missing, given)}`` (see :func:`lost_shares`).
    threshold : float in [0, 1]
        Largest lost share allowed per set.
    minimum : mapping of str to int, optional
        Fewest items a set must keep, per set name (a set given with fewer is only refused when it
        lost a word).
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


__all__ = ["LOST_VOCABULARY_THRESHOLD", "MIN_ATTRIBUTE_WORDS", "MIN_TARGET_WORDS", "LostVocabularyError",
           "LostVocabularyThreshold", "check_lost_vocabulary", "lost_shares"]
