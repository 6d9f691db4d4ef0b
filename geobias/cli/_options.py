"""Options shared by every command (annotated once, reused), and output helpers."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

Lang = Annotated[str, typer.Option("--lang", "-l", help="Language: en, es, fr or de.")]
OptLang = Annotated[str | None, typer.Option("--lang", "-l", help="Language: en, es, fr or de.")]
Vectors = Annotated[
    str | None,
    typer.Option(
        "--vectors",
        "-v",
        help="Registry name, cached store directory, or vector file (word2vec text/binary, "
        "fastText .vec/.bin, gensim KeyedVectors with --trust-pickle). Default: the language's default source.",
    ),
]
Limit = Annotated[int | None, typer.Option("--limit", help="Read only the first N vectors.")]
TrustPickle = Annotated[
    bool,
    typer.Option(
        "--trust-pickle",
        help="Allow loading gensim KeyedVectors files, which unpickles them and can run arbitrary code.",
    ),
]
Subwords = Annotated[
    bool,
    typer.Option(
        "--subwords",
        help="fastText .bin only: build vectors for out-of-vocabulary list words from character n-grams "
        "(opt-in; without it such words are reported missing).",
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]
Seed = Annotated[int, typer.Option("--seed", help="Random seed (same seed, same p-value).")]
Plot = Annotated[Path | None, typer.Option("--plot", help="Write a PNG plot to this file.")]

stdout = Console(soft_wrap=True)
stderr = Console(stderr=True)


def command_envelope(result: Any) -> dict[str, Any]:
    """The result envelope for the running command: its name, the options it was given and the
    stores it resolved, as recorded by :func:`geobias.results.record_input`."""
    from geobias.results import envelope, recorded_inputs

    inputs = recorded_inputs()
    command = inputs.pop("command", "")
    inputs.setdefault("options", {})
    return envelope(command, inputs, result)


def emit(result: Any, as_json: bool, render) -> None:
    """Print ``result`` as the JSON envelope ``{command, geobias_version, inputs, result}``, or
    through ``render(console, result)``."""
    if as_json:
        sys.stdout.write(json.dumps(command_envelope(result), indent=2, ensure_ascii=False) + "\n")
    else:
        render(stdout, result)
