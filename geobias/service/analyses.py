"""The quick analyses, answered synchronously: the CLI's library calls on an open store.

Each function validates its request against the service's caps, calls the library as the
matching ``geobias`` command does, and returns the envelope of :func:`geobias.results.envelope`
with the same ``result`` as that command's ``--json``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from geobias.errors import InputError
from geobias.results import envelope, jsonable
from geobias.service.config import ServiceConfig
from geobias.service.models import (
    DirectionsRequest,
    MweatRequest,
    NeighborsRequest,
    TranslateEvalRequest,
    WeatRequest,
)
from geobias.service.stores import StoreManager


def check_cap(value: int, cap: int, what: str, *, minimum: int = 1) -> None:
    if value < minimum:
        raise InputError(f"{what} must be at least {minimum}; got {value}")
    if value > cap:
        raise InputError(f"{what} is capped at {cap:,} by this service; got {value:,}")


def check_words(words, cap: int, what: str) -> list[str]:
    if words is None:
        return None
    if len(words) > cap:
        raise InputError(f"{what}: {len(words):,} words, more than this service's cap of {cap:,}")
    if not words:
        raise InputError(f"{what} is empty")
    return list(words)


def _open(stores: StoreManager, name: str | None, lang: str | None, option: str = "vectors"):
    """The open store for ``name`` (or ``lang``'s default source), and its envelope record."""
    from geobias.languages import get_language
    from geobias.sources.registry import SOURCES

    code = get_language(lang).code if lang is not None else None
    if name is None:
        if code is None:
            raise InputError("pass lang or store")
        name = stores.default_for(code)
    if code is not None and name in SOURCES and SOURCES[name].lang != code:
        raise InputError(f"store {name} holds {SOURCES[name].lang!r} vectors but lang is {code!r}")
    store = stores.get(name)
    record = {"given": name, "lang": code or store.lang, "shape": list(store.vectors.shape),
              "provenance": store.provenance}
    return store, code or store.lang, {option: record}


def _env(command: str, req, records: dict[str, Any], result) -> dict[str, Any]:
    return envelope(command, {"options": jsonable(req.model_dump()), **records}, result)


def neighbors(cfg: ServiceConfig, stores: StoreManager, req: NeighborsRequest) -> dict[str, Any]:
    from geobias.store.neighbors import nearest_neighbors

    check_cap(req.k, cfg.max_k, "k")
    store, lang, rec = _open(stores, req.store, req.lang)
    result = nearest_neighbors(store, req.word, req.k, lang=lang, source=req.store)
    return _env("neighbors", req, rec, result)


def weat(cfg: ServiceConfig, stores: StoreManager, req: WeatRequest) -> dict[str, Any]:
    from geobias import wordlists
    from geobias.metrics import weat as weat_fn

    check_cap(req.permutations, cfg.max_permutations, "permutations")
    inline = [req.X, req.Y, req.A, req.B]
    if any(s is not None for s in inline):
        if any(s is None for s in inline):
            raise InputError("give all four of X, Y, A, B (or none, with test and lang)")
        X, Y, A, B = (check_words(s, cfg.max_words, n) for s, n in zip(inline, "XYAB", strict=True))
        name = "custom"
    else:
        if req.lang is None:
            raise InputError("pass lang to use the built-in WEAT tests (or give X, Y, A, B)")
        sets = wordlists.weat_test(req.lang, req.test)
        X, Y, A, B, name = sets.X, sets.Y, sets.A, sets.B, sets.name
    store, _, rec = _open(stores, req.store, req.lang)
    result = weat_fn(store, X, Y, A, B, n_permutations=req.permutations, seed=req.seed,
                     similarity=req.similarity, oov=req.oov, alternative=req.alternative, test=name)
    return _env("weat", req, rec, result)


def mweat(cfg: ServiceConfig, stores: StoreManager, req: MweatRequest) -> dict[str, Any]:
    from geobias import wordlists
    from geobias.metrics import mweat as mweat_fn

    check_cap(req.permutations, cfg.max_permutations, "permutations")
    if req.targets is not None:
        check_words(req.targets, cfg.max_words, "targets")
        bad = next((t for t in req.targets if len(t) not in (2, 3) or not all(w.strip() for w in t)), None)
        if bad is not None:
            raise InputError(f"targets: each entry is [feminine, masculine] or [feminine, masculine, english]; got {bad!r}")
        occupations = [wordlists.Occupation(t[0], t[1], t[2] if len(t) == 3 else "") for t in req.targets]
    else:
        if req.lang is None:
            raise InputError("pass lang to use the built-in occupation list (or give targets)")
        occupations = wordlists.occupations(req.lang)
    if (req.male is None) != (req.female is None):
        raise InputError("give both male and female attribute words, or neither")
    if req.male is not None:
        male, female = check_words(req.male, cfg.max_words, "male"), check_words(req.female, cfg.max_words, "female")
    else:
        if req.lang is None:
            raise InputError("pass lang to use the built-in attribute words (or give male and female)")
        male, female = wordlists.attribute_words(req.lang)
    store, _, rec = _open(stores, req.store, req.lang)
    result = mweat_fn(store, occupations, male, female, n_permutations=req.permutations, seed=req.seed,
                      similarity=req.similarity, paired=req.paired, oov=req.oov)
    return _env("mweat", req, rec, result)


def directions(cfg: ServiceConfig, stores: StoreManager, req: DirectionsRequest) -> dict[str, Any]:
    from geobias.directions import gender_directions
    from geobias.languages import get_language

    check_cap(req.cv, 20, "cv", minimum=2)
    if req.max_per_class is not None:
        check_cap(req.max_per_class, cfg.max_words, "max_per_class")
    language = get_language(req.lang)
    store, _, rec = _open(stores, req.store, language.code)
    result = gender_directions(store, language.code, cv=req.cv, random_state=req.seed,
                               max_per_class=req.max_per_class, oov=req.oov)
    return _env("directions", req, rec, result)


def translate_eval(cfg: ServiceConfig, stores: StoreManager, req: TranslateEvalRequest) -> dict[str, Any]:
    from geobias.alignment import TranslateEvalResult, read_dictionary, translation_accuracy

    check_cap(req.csls_k, 100, "csls_k")
    lines = req.dictionary.count("\n") + 1
    if lines > cfg.max_words:
        raise InputError(f"dictionary: {lines:,} lines, more than this service's cap of {cfg.max_words:,}")
    dico = read_inline(req.dictionary, "dictionary", read_dictionary)
    s, src, rec_s = _open(stores, req.src_store, req.src, "src_vectors")
    t, tgt, rec_t = _open(stores, req.tgt_store, req.tgt, "tgt_vectors")
    nn = translation_accuracy(s, t, dico, method="nn")
    cs = translation_accuracy(s, t, dico, method="csls", csls_k=req.csls_k)
    result = TranslateEvalResult(src, tgt, nn.to_dict(), cs.to_dict())
    return _env("translate-eval", req, {**rec_s, **rec_t}, result)


def read_inline(text: str, what: str, reader):
    """Run a file reader of the library on inline request text; messages name ``what``, not
    the temporary file."""
    with tempfile.TemporaryDirectory(prefix="geobias-inline-") as d:
        path = Path(d) / what
        path.write_text(text, encoding="utf-8")
        try:
            return reader(path)
        except InputError as exc:
            raise InputError(str(exc).replace(str(path), what)) from None
