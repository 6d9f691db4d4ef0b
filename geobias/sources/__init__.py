"""Vector sources: the registry of named sources and their installs, and :func:`resolve_store`,
the one entry point commands use to get a :class:`VectorStore`. The file format functions of
:mod:`geobias.store.formats` (:func:`read_vectors`, :func:`write_vectors`, :func:`detect_format`)
are re-exported here for commands."""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from geobias.errors import GeobiasError, InputError
from geobias.languages import get_language
from geobias.sources.registry import (
    SOURCES,
    default_source,
    get_source,
    install,
    is_installed,
    load_installed,
    not_installed_message,
    store_path,
    vectors_dir,
)
from geobias.store import VectorStore, is_cache
from geobias.store.formats import detect_format, read_vectors, write_vectors

__all__ = [
    "SOURCES",
    "detect_format",
    "get_source",
    "install",
    "is_installed",
    "load_installed",
    "read_vectors",
    "resolve_store",
    "use_opener",
    "record_store",
    "store_path",
    "using_opener",
    "vectors_dir",
    "write_vectors",
]


#: The store opener of a host that keeps stores open (the service), or None: see :func:`use_opener`.
_OPENER: contextvars.ContextVar[Callable[[str | None, str | None, str], VectorStore] | None] = \
    contextvars.ContextVar("geobias_store_opener", default=None)


@contextmanager
def use_opener(opener: Callable[[str | None, str | None, str], VectorStore]) -> Iterator[None]:
    """Within the block, :func:`resolve_store` asks ``opener(lang, name, option)`` for every store
    instead of reading files: a host that keeps its stores open (the service) answers from memory
    and refuses paths. ``lang`` is a validated code or None, ``name`` the store asked for (None: the
    language's default)."""
    token = _OPENER.set(opener)
    try:
        yield
    finally:
        _OPENER.reset(token)


def using_opener() -> bool:
    """Whether a host's store opener is in effect (see :func:`use_opener`)."""
    return _OPENER.get() is not None


def auto_install_enabled() -> bool:
    """Whether a missing store that installs without a download is installed on first use
    (default yes; ``GEOBIAS_NO_INSTALL=1`` turns it off for scripted runs)."""
    return os.environ.get("GEOBIAS_NO_INSTALL", "").strip().lower() not in ("1", "true", "yes")


def installs_locally(src) -> bool:
    """Whether registry source ``src`` can be installed here without a download: its vectors
    come from (or are computed by) a PyPI package that is installed."""
    import importlib.util

    if src.kind == "url" or not src.module:
        return False
    try:
        return importlib.util.find_spec(src.module) is not None
    except (ImportError, ValueError):
        return False


def first_run_source(lang: str):
    """The first of ``lang``'s sources that :func:`installs_locally`, when first-use installs
    are on; else ``None``."""
    if not auto_install_enabled():
        return None
    for name in get_language(lang).sources:
        if name in SOURCES and installs_locally(SOURCES[name]):
            return SOURCES[name]
    return None


def install_on_first_use(name: str) -> None:
    """Install registry source ``name`` now, saying so in one line on stderr (as
    ``from_pretrained`` does for a model it fetches), with the install's progress bar."""
    import sys

    from geobias.sources.registry import install, install_path

    src = SOURCES[name]
    how = "computed by the encoder of" if src.kind == "encoder" else "read from"
    print(f"geobias: {name} is not installed; installing it now (first use; {how} the installed "
          f"{src.package or src.module} package, no download) into {install_path(name)} "
          "(GEOBIAS_NO_INSTALL=1 turns this off)", file=sys.stderr, flush=True)
    install(name, progress=True)


def record_store(store: VectorStore, option: str, given: str | None) -> VectorStore:
    """Note the resolved store in the result envelope's inputs (see :mod:`geobias.results`); a store
    reused from :mod:`geobias.sources.opened` is noted as a freshly opened one is."""
    from geobias.results import record_input

    record_input(option.lstrip("-").replace("-", "_"), {
        "given": given, "lang": store.lang, "shape": list(store.vectors.shape),
        "provenance": store.provenance,
    })
    return store


def resolve_store(
    lang: str | None,
    vectors: str | None,
    *,
    limit: int | None = None,
    trust_pickle: bool = False,
    subword_words: Iterable[str] | None = None,
    option: str = "--vectors",
) -> VectorStore:
    """The store a command should use, from ``--lang`` and ``--vectors``.

    Parameters
    ----------
    lang : str or None
        Language code; validated. With ``vectors=None`` its default registry source is used.
    vectors : str or None
        ``None`` (the language's default source), a registry name, the name of a store saved
        under :func:`vectors_dir` (e.g. by ``vectors pool --out NAME``), a cached store directory or
        any vector file (format detected, see :func:`read_vectors`).
    limit : int, optional
        Keep only the first ``limit`` vectors.
    trust_pickle : bool, default False
        Allow gensim KeyedVectors (pickle) files.
    subword_words : iterable of str, optional
        fastText ``.bin`` files only: also build vectors for these words from character n-grams
        when they are out of vocabulary (opt-in; see :func:`read_vectors`).
    option : str, default "--vectors"
        The command-line option that gave ``vectors``, named in error messages (commands with
        two stores use ``--en-vectors``, ``--src-vectors``, ``--tgt-vectors``).

    Returns
    -------
    VectorStore
        With ``lang`` set (the given language, else the source's).

    Raises
    ------
    GeobiasError
        Default/registry source not installed (one line: ``geobias vectors install NAME`` or
        ``--vectors PATH``); neither ``lang`` nor ``vectors``; a registry source of another
        language; unreadable file (:class:`~geobias.errors.VectorFormatError`).
    """
    code = get_language(lang).code if lang is not None else None
    opener = _OPENER.get()
    if opener is not None:
        return record_store(opener(code, vectors, option), option, vectors)
    if limit is not None and limit <= 0:
        raise InputError(f"--limit must be positive; got {limit}")
    if subword_words is not None and (vectors is None or vectors in SOURCES):
        raise InputError("--subwords needs a fastText .bin model passed with --vectors PATH")
    if vectors is None:
        if code is None:
            raise InputError("pass --lang LANG or --vectors PATH")
        src = get_source(default_source(code))
        if not is_installed(src.name):
            local = first_run_source(code)
            if local is None:
                raise GeobiasError(not_installed_message(src, option))
            src = local
            install_on_first_use(src.name)
        return record_store(load_installed(src.name, limit=limit), option, vectors)
    if vectors in SOURCES:
        src = SOURCES[vectors]
        if code is not None and src.lang != code:
            raise InputError(f"{option} {vectors} holds {src.lang!r} vectors but --lang is {code!r}")
        if not is_installed(src.name) and installs_locally(src) and auto_install_enabled():
            install_on_first_use(src.name)
        return record_store(load_installed(src.name, limit=limit), option, vectors)
    path = Path(vectors).expanduser()
    if not path.exists() and is_cache(vectors_dir() / vectors):
        path = vectors_dir() / vectors  # a store saved by name (`vectors pool --out NAME`, `align --out NAME`)
    if not path.exists():
        raise InputError(
            f"{option} {vectors}: no such file, directory or registry name, nor a store saved "
            f"under {vectors_dir()} (registry: {', '.join(SOURCES)})"
        )
    store = read_vectors(path, limit=limit, lang=code, trust_pickle=trust_pickle, subword_words=subword_words)
    if code is not None:
        store.lang = code
    return record_store(store, option, vectors)
