"""The fields every association result carries, written once.

:class:`AssociationResult` holds what every metric on a word query reports beside its figures:
the words it could not use and the bootstrap over the words. :class:`VariantResult` adds what a
metric read in the english or the grammatical variant reports (RND, RNSB, ECT, MAC: the
occupations left out as pairs and the per-pair scores). Both are keyword-only, so a result type
deriving from them lists its own figures first, as before.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field

from geobias.metrics._query import PairScore
from geobias.results import Result
from geobias.stats.bootstrap import BootstrapResult

__all__ = ["AssociationResult", "VariantResult"]


@dataclass(frozen=True, kw_only=True)
class AssociationResult(Result):
    """Base of the association results (WEAT, MWEAT, RND, RNSB, ECT, MAC).

    Attributes
    ----------
    missing : list of str
        Out-of-vocabulary words that were skipped (``oov="ignore"``).
    bootstrap : BootstrapResult or None
        The bootstrap over the words of the metric's headline figure
        (:func:`geobias.metrics.bootstrap.bootstrap_query`; what it resamples is the metric's
        declaration, :mod:`geobias.metrics.declaration`): percentile interval, standard error,
        Monte Carlo error of its bounds, resamples, seed and set sizes; ``None`` unless asked for.
    bootstrap_note : str or None
        Why there is no ``bootstrap`` when a command gave none: its default where a bootstrap does
        not apply (or a set too small to resample), or 0 resamples asked for; ``None`` otherwise.
    """

    missing: list[str] = field(default_factory=list)
    bootstrap: BootstrapResult | None = None
    bootstrap_note: str | None = None


#: The fields of a :class:`VariantResult` that its JSON form lists together, after the metric's
#: own figures (``per_word`` is each metric's own type, declared by the metric).
_WORDS_AND_BOOTSTRAP = ("missing", "dropped_pairs", "per_word", "per_pair", "bootstrap", "bootstrap_note")


@dataclass(frozen=True, kw_only=True)
class VariantResult(AssociationResult):
    """Base of the results of a metric read in the english or the grammatical variant
    (:mod:`geobias.metrics._query`): RND, RNSB, ECT, MAC.

    Attributes
    ----------
    dropped_pairs : list of (masculine, feminine)
        Grammatical variant: the two-form words left out as a whole because a form is out of
        vocabulary.
    per_pair : list of PairScore
        Grammatical variant: each two-form word's scores (the metric's docstring says which).

    Notes
    -----
    The JSON form lists the metric's own figures without a default, then ``missing``,
    ``dropped_pairs``, ``per_word``, ``per_pair``, ``bootstrap``, ``bootstrap_note``, then the
    metric's figures with a default (RNSB's null band): the published schema, field for field.
    """

    dropped_pairs: list[tuple[str, str]] = field(default_factory=list)
    per_pair: list[PairScore] = field(default_factory=list)

    @property
    def _json_keys(self) -> tuple[str, ...]:
        return _variant_keys(type(self))


@functools.cache
def _variant_keys(cls: type) -> tuple[str, ...]:
    own = [f for f in dataclasses.fields(cls) if f.name not in _WORDS_AND_BOOTSTRAP]
    required = [f.name for f in own if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    later = [f.name for f in own if f.name not in required]
    shared = [name for name in _WORDS_AND_BOOTSTRAP if name in {f.name for f in dataclasses.fields(cls)}]
    return (*required, *shared, *later)
