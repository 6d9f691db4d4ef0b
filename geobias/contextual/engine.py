"""Moved to :mod:`geobias.engine` (kept so that code importing the old path keeps working)."""

from geobias.engine.masked import (  # noqa: F401
    MaskedQuery,
    count_distinct,
    masked_log_probs,
    naive_masked_log_probs,
)

__all__ = ["MaskedQuery", "count_distinct", "masked_log_probs", "naive_masked_log_probs"]
