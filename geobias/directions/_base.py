"""The estimator contract shared by direction estimators (STYLE.md §1)."""

from __future__ import annotations

from typing import Any

from geobias.errors import NotFittedError


class FittedAttributes:
    """Mixin: reading a learned attribute (``name_``) before ``fit`` raises NotFittedError.

    ``__init__`` of subclasses stores keyword parameters only; ``fit`` sets the attributes
    with a trailing underscore and returns ``self``.
    """

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails, i.e. the attribute was never set.
        if name.endswith("_") and not name.startswith("__"):
            raise NotFittedError(
                f"{type(self).__name__} is not fitted yet: call fit(...) before using {name!r}"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _check_fitted(self) -> None:
        self.direction_  # noqa: B018 - raises NotFittedError when unfitted

    def get_params(self) -> dict[str, Any]:
        """The constructor parameters (scikit-learn convention)."""
        import inspect

        names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
        return {n: getattr(self, n) for n in names}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"
