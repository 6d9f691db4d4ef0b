"""`geobias vectors list | install | info`: the registry of named vector sources."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from geobias.cli._app import vectors_app
from geobias.cli._options import Json, Limit, Quiet, TrustPickle, emit, progress, stderr
from geobias.results import Result


@dataclass(frozen=True)
class SourceRow(Result):
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
    vectors_dir: str
    sources: list[SourceRow]


@dataclass(frozen=True)
class VectorsInfo(Result):
    """Description of a registry source or a vector file/store."""

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


@vectors_app.command("list")
def list_cmd(as_json: Json = False) -> None:
    """List the named vector sources: language, shape, licence, and whether they are installed."""
    from geobias.sources.registry import SOURCES, install_path, is_installed, vectors_dir

    rows = [
        SourceRow(s.name, s.lang, list(s.shape), s.licence, is_installed(s.name), str(install_path(s.name)),
                  s.url, s.package, s.description)
        for s in SOURCES.values()
    ]
    emit(SourceList(str(vectors_dir()), rows), as_json, _render_list)


def _render_list(console, result: SourceList) -> None:
    from rich.table import Table

    table = Table(title=f"vector sources (installed under {result.vectors_dir})")
    table.add_column("name", no_wrap=True)
    table.add_column("lang")
    table.add_column("shape", no_wrap=True, justify="right")
    table.add_column("licence")
    table.add_column("installed")
    for r in result.sources:
        n, d = r.shape
        shape = f"{n:,} × {d}" if n else f"? × {d}"
        table.add_row(r.name, r.lang, shape, r.licence.split(" (")[0], "yes" if r.installed else "no")
    console.print(table)


@vectors_app.command("install")
def install_cmd(
    name: Annotated[str, typer.Argument(help="Registry name (see `geobias vectors list`).")],
    from_path: Annotated[
        Path | None,
        typer.Option("--from", help="Build from this local file (or spaCy package directory) instead of downloading."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if already installed.")] = False,
    vocab_size: Annotated[int | None, typer.Option(
        "--vocab-size", help="use-m3-* only: encode the top-N wordfreq words (default 50,000) plus our word lists.")] = None,
    words: Annotated[Path | None, typer.Option(
        "--words", help="use-m3-* only: also encode the words of this file (one per line).")] = None,
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """Materialise a named source as a fast cached store under vectors/NAME/."""
    from geobias.sources.registry import SOURCES, install
    from geobias.wordlists import read_word_file

    extra = read_word_file(words) if words is not None else None
    ui = progress(quiet, as_json)
    options = {"vocab_size": vocab_size, "extra_words": extra}
    if from_path is None and name in SOURCES and SOURCES[name].kind in ("url", "encoder"):
        # these show their own bar (the download's, the encoder's batches)
        result = install(name, from_path=from_path, force=force, progress=ui.enabled, **options)
    else:
        with ui.stage(f"installing {name}"):
            result = install(name, from_path=from_path, force=force, progress=False, **options)
    emit(result, as_json, _render_install)


def _render_install(console, r) -> None:
    if r.already_installed:
        console.print(f"{r.name} is already installed at {r.path} ({r.n_words:,} × {r.dim}); --force rebuilds it")
        return
    check = {True: ", sha256 verified", False: ", sha256 MISMATCH", None: ""}[r.verified]
    console.print(f"installed {r.name}: {r.n_words:,} × {r.dim} at {r.path}{check} (from {r.origin})")


@vectors_app.command("info")
def info_cmd(
    target: Annotated[str, typer.Argument(help="Registry name, store directory or vector file.")],
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    verify: Annotated[
        bool,
        typer.Option("--verify", help="Re-hash a store's vectors.npy against its meta.json (and the registry); "
                     "exit 1 if damaged. Loading skips this check for speed."),
    ] = False,
    as_json: Json = False,
) -> None:
    """Describe a registry source (and verify its installed checksum) or a vector file."""
    from geobias.errors import VectorFormatError
    from geobias.io.formats import detect_format
    from geobias.sources import read_vectors
    from geobias.sources.registry import SOURCES, install_path, is_installed
    from geobias.store import load_store, verify_store
    from geobias.store.cache import sha256_file

    if target in SOURCES:
        src = SOURCES[target]
        if not is_installed(target):
            info = VectorsInfo(src.name, str(install_path(target)), "cache", False, src.shape[0], src.shape[1],
                               src.lang, None, None, src.sha256_vectors, None, [], src.to_dict())
        else:
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
            info = VectorsInfo(src.name, str(path), "cache", True, len(store), store.dim, store.lang,
                               float(store.norms.mean()), sha, expected or meta_sha, ok, store.words[:10],
                               store.provenance)
    else:
        p = Path(target).expanduser()
        if not p.exists():
            from geobias.errors import InputError

            raise InputError(f"{target}: no such file, directory or registry name (registry: {', '.join(SOURCES)})")
        fmt = detect_format(p)
        # Other formats are fully validated when parsed; a store is checked only with --verify.
        sha = verify_store(p) if verify and fmt == "cache" else None
        store = read_vectors(p, limit=limit, trust_pickle=trust_pickle)
        info = VectorsInfo(None, str(p.resolve()), fmt, None, len(store), store.dim, store.lang,
                           float(store.norms.mean()), sha, sha, None if sha is None else True, store.words[:10],
                           store.provenance)
    emit(info, as_json, _render_info)


def _meta_sha(path: Path) -> str | None:
    import json

    return json.loads((path / "meta.json").read_text(encoding="utf-8")).get("sha256_vectors")


def _render_info(console, r: VectorsInfo) -> None:
    from rich.table import Table

    table = Table(show_header=False, title=r.name or r.path)
    rows = [("path", r.path), ("format", r.format)]
    if r.installed is not None:
        rows.append(("installed", "yes" if r.installed else "no (run `geobias vectors install " + str(r.name) + "`)"))
    rows += [("shape", f"{r.n_words} × {r.dim}"), ("lang", r.lang)]
    if r.mean_norm is not None:
        rows.append(("mean norm", f"{r.mean_norm:.4f}"))
    if r.sha256_vectors:
        rows.append(("sha256 vectors.npy", f"{r.sha256_vectors} ({'ok' if r.sha256_ok else 'MISMATCH'})"))
    if r.first_words:
        rows.append(("first words", " ".join(r.first_words)))
    for key in ("licence", "provenance", "url", "package"):
        if r.provenance.get(key):
            rows.append((key, str(r.provenance[key])))
    for k, v in rows:
        table.add_row(k, str(v))
    console.print(table)
    if r.sha256_ok is False:
        stderr.print("warning: the installed vectors do not match their checksum; reinstall with --force")
