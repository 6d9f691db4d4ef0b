"""`geobias vectors list | install | info | verify`: the registry of named vector sources."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import vectors_app
from geobias.cli._options import Csv, Json, Limit, Quiet, TrustPickle
from geobias.cli._run import invoke


@vectors_app.command("list")
def list_cmd(as_json: Json = False, as_csv: Csv = False) -> None:
    """List the named vector sources: language, shape, licence, and whether they are installed.

    Example: geobias vectors list --json
    """
    invoke("vectors list", locals())


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
    invoke("vectors install", locals())


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
    invoke("vectors info", locals())


@vectors_app.command("verify")
def verify_cmd(
    names: Annotated[list[str] | None, typer.Argument(help="Store names or folders (default: every installed store).")] = None,
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """Re-hash stores in full against the sha256 recorded when they were saved; exit 1 naming a changed file.

    Example: geobias vectors verify fr-spacy-md
    """
    invoke("vectors verify", {**locals(), "names": names or []})
