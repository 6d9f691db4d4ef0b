"""The bootstrap over the words, as every association command offers it (``--bootstrap N``).

:class:`BootstrapParams` is mixed into the parameter models of weat, mweat, seat, ripa, rnd, rnsb,
ect and mac: ``bootstrap`` resamples (none by default) and ``bootstrap_seed`` (default: the
command's ``seed``, else 0). The metric computes the interval itself
(:func:`geobias.metrics.bootstrap.bootstrap_query` on the resolved query); the command only passes
the two numbers and counts the resamples in its work budget.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from geobias.commands._base import Estimate, Params
from geobias.commands._fields import Seed
from geobias.errors import ParameterError

#: The most resamples one command accepts (geobias.stats.bootstrap.MAX_RESAMPLES).
MAX_BOOTSTRAP = 1_000_000


class BootstrapParams(Params):
    """``bootstrap`` resamples over the words and their seed."""

    bootstrap: int | None = Field(None, description=(
        "Bootstrap over the words: resample each word set with replacement this many times (e.g. 1000; pairs as "
        "pairs) and report the percentile interval and standard error of the figure; default none."))
    bootstrap_seed: Seed | None = Field(None, description="Seed of the bootstrap (default: `seed`, else 0).")

    @field_validator("bootstrap", mode="after")
    @classmethod
    def _bootstrap(cls, value: int | None) -> int | None:
        if value is None:
            return None
        if value < 1:
            raise ParameterError(f"bootstrap must be at least 1 resample (got {value}); leave it out for no "
                                 "interval", "bootstrap")
        if value > MAX_BOOTSTRAP:
            raise ParameterError(f"bootstrap: {value:,} resamples is more than the {MAX_BOOTSTRAP:,} allowed",
                                 "bootstrap")
        return value

    def bootstrap_kwargs(self) -> dict[str, int | None]:
        """``{"bootstrap": resamples or 0, "bootstrap_seed": seed}`` for the metric function."""
        seed = self.bootstrap_seed if self.bootstrap_seed is not None else getattr(self, "seed", 0)
        return {"bootstrap": self.bootstrap or 0, "bootstrap_seed": seed}

    def with_bootstrap(self, estimate: Estimate | None, words: int) -> Estimate | None:
        """``estimate`` plus the bootstrap's work: each resample counted as one partition per word it
        resamples (``words``, before OOV words are dropped)."""
        if not self.bootstrap:
            return estimate
        from geobias.commands._permutations import MAX_PERMUTATIONS

        units = self.bootstrap * max(words, 1)
        detail = f"{self.bootstrap:,} bootstrap resamples × {words} words"
        if estimate is None:
            return Estimate(units, "permutations", detail, None, MAX_PERMUTATIONS)
        return Estimate(estimate.units + units, estimate.unit,
                        f"{estimate.detail or f'{estimate.units:,} partitions'} + {detail}", estimate.seconds,
                        estimate.limit)


__all__ = ["MAX_BOOTSTRAP", "BootstrapParams"]
