"""The command layer's field for the lost-vocabulary rule; the rule itself is :mod:`geobias.query`.

Every association metric applies WEFE's lost-vocabulary threshold inside
:meth:`geobias.query.WordQuery.resolve`, so commands and Python callers get the same refusal; the
command layer only declares the parameter (:data:`LostVocabularyThreshold`).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from geobias.commands._kinds import Spec
from geobias.query import (
    LOST_VOCABULARY_THRESHOLD,
    MIN_ATTRIBUTE_WORDS,
    MIN_TARGET_WORDS,
    LostVocabularyError,
    check_lost_vocabulary,
    lost_shares,
)

#: The parameter field: a share in [0, 1] (1 disables the share check; the minimum sizes stay).
LostVocabularyThreshold = Annotated[float, Spec(label="Largest share of a word set that may be missing"), Field(
    ge=0, le=1, allow_inf_nan=False, description=(
        "Refuse when more than this share of any word set is out of the store's vocabulary (WEFE's "
        "lost_vocabulary_threshold; checked per set; 1 turns the check off)."))]

__all__ = ["LOST_VOCABULARY_THRESHOLD", "MIN_ATTRIBUTE_WORDS", "MIN_TARGET_WORDS", "LostVocabularyError",
           "LostVocabularyThreshold", "check_lost_vocabulary", "lost_shares"]
