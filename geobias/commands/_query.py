"""The one parameter model of a word query, shared by every association command.

:class:`WordQueryParams` holds what :class:`geobias.query.WordQuery` needs — a built-in test or your
own sets (``targets_x``, ``targets_y``, ``attributes_a``, ``attributes_b``: files, comma lists or
lists) and the ``lost_vocabulary_threshold`` — and turns it into a ``WordQuery`` with
:meth:`WordQueryParams.word_query`. Two class settings say how a command reads it:

``FULL``
    ``True`` (WEAT, SEAT): your own query is all four sets or none; with none, the built-in test
    ``DEFAULT_TEST``. ``False`` (RND, RNSB, ECT, MAC): ``targets_y`` may be left out (one target
    set), and with no sets the language's occupations and attribute words are the default.
``KIND``
    How messages name the metric ("WEAT").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, ClassVar

from pydantic import AliasChoices, Field, model_validator

from geobias.commands._base import Params
from geobias.commands._fields import WordSet
from geobias.commands._guards import LOST_VOCABULARY_THRESHOLD, LostVocabularyThreshold
from geobias.commands._kinds import Spec
from geobias.errors import InputError, ParameterError

if TYPE_CHECKING:  # numpy stays out of `geobias --help`: the query is imported on use
    from geobias.query import WordQuery


#: A built-in test's name: what to run, shown after the store in a form.
TEST = Spec(label="Built-in test", order=3, short="-t", widget="weat-test")
#: The four sets of a query (word sets; the form labels them by role).
TargetsX = Annotated[WordSet | None, Spec(label="Target words X")]
TargetsY = Annotated[WordSet | None, Spec(label="Target words Y")]
AttributesA = Annotated[WordSet | None, Spec(label="Attribute words A")]
AttributesB = Annotated[WordSet | None, Spec(label="Attribute words B")]


def need_lang(lang: str | None, what: str) -> str:
    """``lang``, or an :class:`InputError` saying that the built-in ``what`` needs ``lang``."""
    if lang is None:
        raise InputError(f"pass `lang` to use the built-in {what} (or give your own words)")
    return lang


class WordQueryParams(Params):
    """A word query: a built-in test, your own sets, or (where the command has them) the language's defaults."""

    KIND: ClassVar[str] = "WEAT"
    FULL: ClassVar[bool] = True
    DEFAULT_TEST: ClassVar[str | None] = "career-family"
    _ROLES: ClassVar[tuple[str, ...]] = ("targets_x", "targets_y", "attributes_a", "attributes_b")

    test: Annotated[str | None, TEST] = Field(None, description="Built-in test: career-family, career-family-terms, math-arts, "
                                               "science-arts, math-arts-names, science-arts-names (May et al.'s "
                                               "7b, 8b) or flowers-insects (control).")
    targets_x: TargetsX = Field(None, validation_alias=AliasChoices("targets_x", "X"), description="Target set X.")
    targets_y: TargetsY = Field(None, validation_alias=AliasChoices("targets_y", "Y"), description="Target set Y.")
    attributes_a: AttributesA = Field(None, validation_alias=AliasChoices("attributes_a", "A"),
                                         description="Attribute set A (e.g. male words).")
    attributes_b: AttributesB = Field(None, validation_alias=AliasChoices("attributes_b", "B"),
                                         description="Attribute set B (e.g. female words).")
    lost_vocabulary_threshold: LostVocabularyThreshold = LOST_VOCABULARY_THRESHOLD

    @model_validator(mode="after")
    def _query_sets(self):
        given = [r for r in self._ROLES if getattr(self, r) is not None]
        if self.FULL and given and len(given) != 4:
            missing = [r for r in self._ROLES if getattr(self, r) is None]
            raise ParameterError(f"give all four sets for your own {self.KIND}; missing {', '.join(missing)}",
                                 missing[0])
        if (self.attributes_a is None) != (self.attributes_b is None):
            missing = "attributes_b" if self.attributes_b is None else "attributes_a"
            raise ParameterError("give both attributes_a and attributes_b, or neither", missing)
        if self.targets_y is not None and self.targets_x is None:
            raise ParameterError("targets_y needs targets_x", "targets_x")
        if given and self.test is not None:
            raise ParameterError(f"give test or your own sets ({given[0]} ...), not both", "test")
        return self

    def default_test(self, lang: str) -> str | None:
        """The built-in test run when none is named: ``DEFAULT_TEST``."""
        return self.DEFAULT_TEST

    def weat_sets(self) -> tuple[list[str], list[str], list[str], list[str], str]:
        """``(X, Y, A, B, name)`` of a full query: your own four sets, or the built-in test."""
        from geobias import wordlists

        if self.targets_x is not None and self.targets_y is not None and self.attributes_a is not None:
            return (list(self.targets_x), list(self.targets_y), list(self.attributes_a), list(self.attributes_b),
                    "custom")
        lang = need_lang(getattr(self, "lang", None), f"{self.KIND} tests")
        sets = wordlists.weat_test(lang, self.test or self.default_test(lang))
        return list(sets.X), list(sets.Y), list(sets.A), list(sets.B), sets.name

    def word_query(self) -> WordQuery:
        """The :class:`geobias.query.WordQuery` these parameters describe (full queries; see subclasses)."""
        from geobias.query import WordQuery

        X, Y, A, B, name = self.weat_sets()
        return WordQuery(X, Y, A, B, name=name, lost_vocabulary_threshold=self.lost_vocabulary_threshold)


__all__ = ["TEST", "AttributesA", "AttributesB", "TargetsX", "TargetsY", "WordQueryParams", "need_lang"]
