"""What the registry holds and what a vector source is: the results of ``geobias vectors list``
and ``geobias vectors info``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geobias.results import Result


@dataclass(frozen=True)
class SourceRow(Result):
    """One registry source: name, language, ``[n_words or None, dim]``, licence, whether it is
    installed and where, its download URL or Python package, and a description."""

    name: str
    lang: str
    shape: list[int | None]
    licence: str
    installed: bool
    path: str
    url: str | None
    package: str | None
    description: str


@dataclass(frozen=True)
class SourceList(Result):
    """Every registry source (:class:`SourceRow`), and the directory stores install under."""

    vectors_dir: str
    sources: list[SourceRow]


@dataclass(frozen=True)
class VectorsInfo(Result):
    """Description of a registry source or a vector file/store.

    Attributes
    ----------
    name : str or None
        Registry name (None for a file or directory).
    path : str or None
    format : str or None
        ``"cache"`` for a store, else the detected file format.
    installed : bool or None
        Registry sources only.
    n_words, dim : int or None
    lang : str or None
    mean_norm : float or None
        Mean Euclidean norm of the rows (None when not installed).
    sha256_vectors, sha256_expected : str or None
        The hash of ``vectors.npy`` computed here, and the one recorded (registry or meta.json).
    sha256_ok : bool or None
        Whether they match (None when not checked).
    first_words : list of str
        The first ten words.
    provenance : dict
    """

    name: str | None
    path: str | None
    format: str | None
    installed: bool | None
    n_words: int | None
    dim: int | None
    lang: str | None
    mean_norm: float | None
    sha256_vectors: str | None
    sha256_expected: str | None
    sha256_ok: bool | None
    first_words: list[str]
    provenance: dict[str, Any]


def list_sources() -> SourceList:
    """The registry's sources, in registry order, with their install state.

    Returns
    -------
    SourceList
    """
    from geobias.sources.registry import SOURCES, install_path, is_installed, vectors_dir

    rows = []
    for s in SOURCES.values():
        installed = is_installed(s.name)
        shape = list(s.shape)
        if installed and not shape[0]:  # a size known only once built (use-m3-*): the installed store's
            shape = _installed_shape(install_path(s.name)) or shape
        rows.append(SourceRow(s.name, s.lang, shape, s.licence, installed, str(install_path(s.name)),
                              s.url, s.package, s.description))
    return SourceList(str(vectors_dir()), rows)


def _installed_shape(path) -> list[int] | None:
    """``[n_words, dim]`` from an installed store's ``meta.json`` (no vectors read)."""
    import json

    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        return [int(meta["n_words"]), int(meta["dim"])]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def describe(target: str, *, limit: int | None = None, trust_pickle: bool = False, verify: bool = False
             ) -> VectorsInfo:
    """Describe a registry source (and check its installed checksum) or a vector file/store.

    Parameters
    ----------
    target : str
        Registry name, store directory or vector file.
    limit : int, optional
        Read only the first ``limit`` vectors.
    trust_pickle : bool, default False
        Allow gensim KeyedVectors files (unpickling can run code).
    verify : bool, default False
        Re-hash a store's ``vectors.npy`` against its meta.json (and the registry).

    Returns
    -------
    VectorsInfo

    Raises
    ------
    VectorFormatError
        ``verify`` and an installed registry store whose hash does not match, or a damaged
        store; or an unreadable file.
    InputError
        ``target`` is neither a registry name nor an existing path.
    """
    from geobias.errors import InputError, VectorFormatError
    from geobias.sources.registry import SOURCES, install_path, is_installed
    from geobias.store import load_store, verify_store
    from geobias.store.cache import sha256_file
    from geobias.store.formats import detect_format, read_vectors

    if target in SOURCES:
        src = SOURCES[target]
        if not is_installed(target):
            return VectorsInfo(src.name, str(install_path(target)), "cache", False, src.shape[0], src.shape[1],
                               src.lang, None, None, src.sha256_vectors, None, [], src.to_dict())
        path = install_path(target)
        store = load_store(path, limit=limit)
        sha = verify_store(path) if verify else sha256_file(path / "vectors.npy")
        expected = src.sha256_vectors or store.provenance.get("sha256_vectors")
        meta_sha = _meta_sha(path)
        ok = sha == (src.sha256_vectors or meta_sha)
        if verify and not ok:
            raise VectorFormatError(
                f"{path}: vectors.npy does not match the registry's sha256 for {src.name}; "
                f"reinstall it (geobias vectors install {src.name} --force)"
            )
        return VectorsInfo(src.name, str(path), "cache", True, len(store), store.dim, store.lang,
                           float(store.norms.mean()), sha, expected or meta_sha, ok, store.words[:10],
                           store.provenance)
    p = Path(target).expanduser()
    if not p.exists():
        raise InputError(f"{target}: no such file, directory or registry name (registry: {', '.join(SOURCES)})")
    fmt = detect_format(p)
    # Other formats are fully validated when parsed; a store is checked only with verify.
    sha = verify_store(p) if verify and fmt == "cache" else None
    store = read_vectors(p, limit=limit, trust_pickle=trust_pickle)
    return VectorsInfo(None, str(p.resolve()), fmt, None, len(store), store.dim, store.lang,
                       float(store.norms.mean()), sha, sha, None if sha is None else True, store.words[:10],
                       store.provenance)


def _meta_sha(path: Path) -> str | None:
    return json.loads((path / "meta.json").read_text(encoding="utf-8")).get("sha256_vectors")
