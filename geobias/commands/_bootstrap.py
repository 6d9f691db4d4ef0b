"""The bootstrap over the words, as every association command offers it (``--bootstrap N``).

:class:`BootstrapParams` is mixed into the parameter models of weat, mweat, seat, ripa, rnd, rnsb,
ect and mac: ``bootstrap`` resamples and ``bootstrap_seed`` (default: the command's ``seed``, else
0). Left out (``None``), ``bootstrap`` is the command's default, :attr:`BootstrapParams.DEFAULT_BOOTSTRAP`
resamples (1,000; RNSB, which retrains its classifier on each resample, fewer), or none where a
bootstrap does not apply (:meth:`BootstrapParams.no_bootstrap_reason`: the result's
``bootstrap_note`` says why); ``0`` asks for none. The metric computes the interval itself
(:func:`geobias.metrics.bootstrap.bootstrap_query` on the resolved query); the command only passes
the two numbers and counts the resamples in its work budget.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Annotated, Any, ClassVar

from pydantic import Field, field_validator

from geobias.commands._base import Estimate, Params
from geobias.commands._fields import Seed
from geobias.commands._kinds import Spec, capped
from geobias.errors import ParameterError

#: The most resamples one command accepts (geobias.stats.bootstrap.MAX_RESAMPLES).
MAX_BOOTSTRAP = 1_000_000

#: Resamples when ``bootstrap`` is left out (a command may default to fewer: see RNSB).
DEFAULT_BOOTSTRAP = 1_000


class BootstrapParams(Params):
    """``bootstrap`` resamples over the words and their seed.

    ``bootstrap=None`` (left out) is the command's default, :attr:`DEFAULT_BOOTSTRAP` resamples, or
    none where :meth:`no_bootstrap_reason` gives a reason; ``0`` is none; an explicit count where a
    bootstrap does not apply is refused.
    """

    #: Resamples when ``bootstrap`` is left out.
    DEFAULT_BOOTSTRAP: ClassVar[int] = DEFAULT_BOOTSTRAP

    bootstrap: Annotated[int | None, capped(MAX_BOOTSTRAP, minimum=0, label="Bootstrap resamples")] = Field(None, description=(
        "Bootstrap over the words: resample each word set with replacement this many times (pairs as pairs) and "
        "report the percentile interval and standard error of the figure; default 1000 (rnsb: 200), none where "
        "a bootstrap does not apply (the result says why); 0 for none."))
    bootstrap_seed: Annotated[Seed | None, Spec(label="Bootstrap seed")] = Field(None, description="Seed of the bootstrap (default: `seed`, else 0).")

    @field_validator("bootstrap", mode="after")
    @classmethod
    def _bootstrap(cls, value: int | None) -> int | None:
        if value is None:
            return None
        if value < 0:
            raise ParameterError(f"bootstrap must be 0 (no interval) or more resamples (got {value})", "bootstrap")
        if value > MAX_BOOTSTRAP:
            raise ParameterError(f"bootstrap: {value:,} resamples is more than the {MAX_BOOTSTRAP:,} allowed",
                                 "bootstrap")
        return value

    def no_bootstrap_reason(self) -> str | None:
        """Why these parameters admit no bootstrap (a one-line reason), or ``None``: a command
        overrides it (SEAT on test files, the grammatical variant of RIPA). Left out, ``bootstrap``
        is then none; an explicit count is refused with the reason."""
        return None

    def resamples(self) -> int:
        """The resamples this run makes: ``bootstrap``, or its default (0 where
        :meth:`no_bootstrap_reason` gives a reason).

        Raises
        ------
        ParameterError
            An explicit count where a bootstrap does not apply (field ``"bootstrap"``).
        """
        reason = self.no_bootstrap_reason()
        if self.bootstrap is None:
            return 0 if reason is not None else self.DEFAULT_BOOTSTRAP
        if self.bootstrap and reason is not None:
            raise ParameterError(f"bootstrap: {reason}", "bootstrap")
        return self.bootstrap

    def bootstrap_note(self) -> str | None:
        """The note a result carries when the default gave no interval (``None`` otherwise)."""
        reason = self.no_bootstrap_reason()
        if self.bootstrap is None and reason is not None:
            return f"no bootstrap by default: {reason}"
        return "no bootstrap: 0 resamples asked for" if self.bootstrap == 0 else None

    def bootstrap_kwargs(self) -> dict[str, int | None]:
        """``{"bootstrap": resamples or 0, "bootstrap_seed": seed}`` for the metric function."""
        seed = self.bootstrap_seed if self.bootstrap_seed is not None else getattr(self, "seed", 0)
        return {"bootstrap": self.resamples(), "bootstrap_seed": seed}

    def with_bootstrap_result(self, metric: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``metric(*args, **kwargs, bootstrap=..., bootstrap_seed=...)``, its result carrying
        :meth:`bootstrap_note`.

        With the default count, a query whose sets are too small to resample (a set of fewer than
        2 words or pairs after out-of-vocabulary words are dropped) gives the figure without an
        interval, the reason in the result's ``bootstrap_note``; an explicit count is refused.
        """
        from geobias.metrics.bootstrap import lenient

        if self.bootstrap is None:  # the default count: sets too small to resample give no interval
            with lenient() as skipped:
                result = metric(*args, **kwargs, **self.bootstrap_kwargs())
            if skipped:
                return dataclasses.replace(result, bootstrap_note=f"no bootstrap by default: {skipped[0]}")
        else:
            result = metric(*args, **kwargs, **self.bootstrap_kwargs())
        note = self.bootstrap_note()
        return dataclasses.replace(result, bootstrap_note=note) if note is not None else result

    def with_bootstrap(self, estimate: Estimate | None, words: int) -> Estimate | None:
        """``estimate`` plus one pass of the bootstrap: each resample counted as one partition per word
        it resamples (``words``, before OOV words are dropped); :meth:`Command.work
        <geobias.commands.Command.work>` counts every pass its metric makes."""
        n = self.resamples()
        if not n:
            return estimate
        from geobias.commands._permutations import MAX_PERMUTATIONS

        words = max(words, 1)
        units = n * words
        detail = f"{n:,} bootstrap resamples × {words} words"
        if estimate is None:
            return Estimate(units, "permutations", detail, None, MAX_PERMUTATIONS, resamples=n, resample_words=words)
        return Estimate(estimate.units + units, estimate.unit,
                        f"{estimate.detail or f'{estimate.units:,} partitions'} + {detail}", estimate.seconds,
                        estimate.limit, resamples=n, resample_words=words)


__all__ = ["DEFAULT_BOOTSTRAP", "MAX_BOOTSTRAP", "BootstrapParams"]
