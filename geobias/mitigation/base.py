"""The estimator contract shared by every mitigation method (STYLE.md §1)."""

from __future__ import annotations

from typing import ClassVar

from geobias.estimator import Estimator


class Mitigation(Estimator):
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
