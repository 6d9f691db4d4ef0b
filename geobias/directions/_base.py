"""The estimator contract shared by direction estimators: :class:`geobias.estimator.Estimator`
(kept under its former name for the direction modules)."""

from __future__ import annotations

from geobias.estimator import Estimator as FittedAttributes

__all__ = ["FittedAttributes"]
