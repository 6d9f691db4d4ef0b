"""`geobias vectors list | install | info`: the registry of named vector sources."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import vectors_app
from geobias.cli._options import Json, Limit, Quiet, TrustPickle, emit, progress, stderr


@vectors_app.command("list")
def list_cmd(as_json: Json = False) -> None:
    """List the named vector sources: language, shape, licence, and whether they are installed.

    Example: geobias vectors list --json
    """
    from geobias.sources.info import list_sources

    emit(list_sources(), as_json, _render_list)


def _render_list(console, result) -> None:
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
    """Materialise a named source as a fast cached store under vectors/NAME/.

    Example: geobias vectors install fr-spacy-md
    """
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
    """Describe a registry source (and verify its installed checksum) or a vector file.

    Example: geobias vectors info fr-spacy-md --verify
    """
    from geobias.sources.info import describe

    info = describe(target, limit=limit, trust_pickle=trust_pickle, verify=verify)
    emit(info, as_json, _render_info)


def _render_info(console, r) -> None:
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
