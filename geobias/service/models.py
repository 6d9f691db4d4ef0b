"""Pydantic request models: one per route, unknown fields refused (422)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Word = str
WordList = list[Word]


class _Req(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StoreRef(_Req):
    store: str | None = Field(None, description="Store name (GET /stores); default: the language's default source.")
    lang: str | None = Field(None, description="Language: en, es, fr or de.")


class NeighborsRequest(StoreRef):
    word: str
    k: int = 10


class WeatRequest(StoreRef):
    test: str = Field("career-family", description="Built-in test (needs lang), unless X, Y, A, B are given.")
    X: WordList | None = None
    Y: WordList | None = None
    A: WordList | None = None
    B: WordList | None = None
    permutations: int = 100_000
    seed: int = 0
    similarity: Literal["cosine", "dot"] = "cosine"
    alternative: Literal["greater", "less", "two-sided"] = "greater"
    oov: Literal["ignore", "raise"] = "ignore"


class MweatRequest(StoreRef):
    targets: list[list[str]] | None = Field(
        None, description="Occupations as [feminine, masculine] or [feminine, masculine, english]; default: the language's list.")
    male: WordList | None = Field(None, description="Male attribute words (with female); default: the language's list.")
    female: WordList | None = None
    permutations: int = 100_000
    seed: int = 0
    similarity: Literal["cosine", "dot"] = "cosine"
    paired: bool = False
    oov: Literal["ignore", "raise"] = "ignore"


class DirectionsRequest(StoreRef):
    lang: str
    seed: int = 0
    cv: int = 5
    max_per_class: int | None = None
    oov: Literal["ignore", "raise"] = "ignore"


class TranslateEvalRequest(_Req):
    src: str
    tgt: str
    dictionary: str = Field(description="MUSE test dictionary text: 'src tgt' per line.")
    src_store: str | None = None
    tgt_store: str | None = None
    csls_k: int = 10


JobKind = Literal["evaluate", "mitigate", "align", "probe-becpro", "probe-malor", "probe-association",
                  "vectors-pool", "mweat", "weat", "directions"]


class JobRequest(_Req):
    kind: JobKind
    params: dict = Field(default_factory=dict, description="The command's parameters (see the README).")
