"""The estimator contract shared by every mitigation method (STYLE.md §1)."""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from geobias.errors import NotFittedError


class Mitigation:
    """Base class: ``__init__`` stores keyword parameters only; ``fit`` learns trailing-underscore
    attributes and returns ``self``; ``transform(store)`` returns a NEW store.

    Class attributes
    ----------------
    name : str
        Registry key (``"shift-ori"`` ...).
    bilingual : bool
        ``fit`` needs the English store (and, for methods that align, a dictionary).
    changes_english : bool
        The method also changes the English side (De-Align, Hybrid: hard-debiased English).
    """

    name: ClassVar[str] = ""
    bilingual: ClassVar[bool] = False
    changes_english: ClassVar[bool] = False

    def get_params(self) -> dict[str, Any]:
        """The constructor parameters and their current values."""
        sig = inspect.signature(type(self).__init__)
        return {p: getattr(self, p) for p in sig.parameters if p != "self"}

    def _check_fitted(self) -> None:
        if not getattr(self, "fitted_", False):
            raise NotFittedError(f"{type(self).__name__} is not fitted; call fit(...) before transform(...)")

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items() if v is not None)
        return f"{type(self).__name__}({args})"
