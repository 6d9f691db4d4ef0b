"""The one estimator contract: scikit-learn's ``BaseEstimator`` for parameters,
``clone`` and ``repr``, and :func:`sklearn.utils.validation.check_is_fitted` for "not fitted".

``__init__`` stores keyword parameters only; ``fit(...)`` learns trailing-underscore attributes
and returns ``self``; ``transform(store)`` returns a *new* store and never mutates its input.
Direction estimators, the Procrustes aligner and every mitigation method subclass
:class:`Estimator`; ``tests/mitigation/test_estimator_contract.py`` checks all of them with one suite.
"""

from __future__ import annotations

from typing import Any

from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError as _SklearnNotFitted
from sklearn.utils.validation import check_is_fitted

from geobias.errors import NotFittedError


class Estimator(BaseEstimator):
    """Base class of every geobias estimator.

    Reading a learned attribute (``name_``) before ``fit`` raises
    :class:`~geobias.errors.NotFittedError` (a :class:`~geobias.errors.GeobiasError`), as does
    :meth:`_check_fitted`, which ``transform`` calls first.
    """

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails, i.e. the attribute was never set.
        if name.endswith("_") and not name.startswith("__"):
            raise NotFittedError(
                f"{type(self).__name__} is not fitted yet: call fit(...) before using {name!r}"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _check_fitted(self) -> None:
        """Raise :class:`~geobias.errors.NotFittedError` unless ``fit`` has run."""
        try:
            check_is_fitted(self)
        except _SklearnNotFitted:
            raise NotFittedError(
                f"{type(self).__name__} is not fitted; call fit(...) before transform(...)"
            ) from None
