"""Options shared by every command (annotated once, reused), and output helpers."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from geobias._progress import Progress as _LibraryProgress
from geobias.cli._choices import OovChoice, PermutationMethod, SimilarityChoice

Lang = Annotated[str, typer.Option("--lang", "-l", help="Language code: en, es, fr, de, ar, it, ja, ko, nl, pl, pt, ru, th, tr, zh-cn or zh-tw.")]
OptLang = Annotated[str | None, typer.Option("--lang", "-l", help="Language code: en, es, fr, de, ar, it, ja, ko, nl, pl, pt, ru, th, tr, zh-cn or zh-tw.")]
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
ModelTrustPickle = Annotated[
    bool,
    typer.Option(
        "--trust-pickle",
        help="Allow a local model folder with only pickled weights (pytorch_model.bin), whose loading can run "
        "arbitrary code. Safetensors weights load by default.",
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
Csv = Annotated[bool, typer.Option("--csv", help=(
    "Print the result as data on stdout: CSV, one row per estimate, every number in full (load it with pandas or R)."))]
Seed = Annotated[int, typer.Option("--seed", help="Random seed (same seed, same p-value).")]
Plot = Annotated[Path | None, typer.Option("--plot", help="Write a PNG plot to this file.")]
Similarity = Annotated[SimilarityChoice, typer.Option("--similarity", help="cosine, or dot (raw dot products, to reproduce notebooks).")]
Oov = Annotated[
    OovChoice,
    typer.Option(
        "--oov",
        help="Out-of-vocabulary words: ignore (skip and list them in the result; a list whose words "
        "are all missing is an error) or raise (stop at the first missing word).",
    ),
]

stdout = Console(soft_wrap=True)

#: Width of tables written to a pipe or file: wide enough that no table wraps (a table is as
#: wide as its content; ``COLUMNS`` still sets a width when given).
PIPE_WIDTH = 10_000


def table_console() -> Console:
    """The console tables print on: the terminal's width on a terminal; when stdout is a pipe or a
    file, ``COLUMNS`` if set, else :data:`PIPE_WIDTH`, so that no table wraps at 80 columns."""
    import os

    if sys.stdout.isatty():
        return stdout
    columns = os.environ.get("COLUMNS", "")
    return Console(file=sys.stdout, soft_wrap=True, width=int(columns) if columns.isdigit() else PIPE_WIDTH)
stderr = Console(stderr=True, soft_wrap=True)  # one line per message, never wrapped


Permutations = Annotated[int, typer.Option("--permutations", "-n", help=(
    "Monte-Carlo permutations (with --permutation-method auto, the exact test when fewer partitions exist). "
    "More than 100,000,000 partitions need --force."))]
MethodOpt = Annotated[PermutationMethod, typer.Option("--permutation-method", help=(
    "Permutation test: exact (enumerate every partition), monte-carlo (-n random permutations) or auto "
    "(exact when there are at most -n partitions)."))]
OldMethodOpt = Annotated[PermutationMethod | None, typer.Option("--method", hidden=True, help=(
    "Deprecated spelling of --permutation-method."))]
Force = Annotated[bool, typer.Option("--force", help=(
    "Run even when the estimated work exceeds the budget (100,000,000 permutation partitions in all)."))]
PlotForce = Annotated[bool, typer.Option("--force", help="Replace an existing --plot file.")]
BudgetPlotForce = Annotated[bool, typer.Option("--force", help=(
    "Run even when the estimated work exceeds the budget (100,000,000 permutation partitions in all); replace an "
    "existing --plot file."))]
LostVocabulary = Annotated[float, typer.Option("--lost-vocabulary-threshold", help=(
    "Refuse when more than this share of any word set is out of the store's vocabulary (WEFE's "
    "lost_vocabulary_threshold; checked per set; 1 turns the check off)."))]

Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr (errors and warnings still print).")]


def progress_enabled(quiet: bool = False, as_json: bool = False) -> bool:
    """Whether a command shows progress on stderr: only on a terminal, never with ``--quiet``,
    and never when ``--json`` output goes to a pipe or file. ``GEOBIAS_PROGRESS=1`` forces it on
    (tests), ``GEOBIAS_PROGRESS=0`` off."""
    import os

    forced = os.environ.get("GEOBIAS_PROGRESS")
    if quiet:
        return False
    if forced in ("0", "1"):
        return forced == "1"
    if as_json and not sys.stdout.isatty():
        return False
    return stderr.is_terminal


class Progress(_LibraryProgress):
    """The CLI's form of the library's progress reporter: rich stages and bars on stderr.

    ``with p.stage("loading vectors"): ...`` shows a spinner with the stage name;
    ``with p.bar("permutations", total) as advance: advance(k)`` shows a bar with the time left.
    Disabled, both are silent no-ops; notes (files written, warnings) always print.
    """

    def __init__(self, enabled: bool, notes: bool = True):
        self.enabled, self.notes = enabled, notes

    def note(self, text: str) -> None:
        """Print a note on stderr; with ``--json`` only warnings (stdout is the envelope, which
        names the files written)."""
        if self.notes or text.startswith("warning:"):
            stderr.print(text, markup=False, highlight=False, soft_wrap=True)

    def _progress(self, *, bar: bool):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        columns = [SpinnerColumn(), TextColumn("{task.description}")]
        if bar:
            columns += [BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()]
        else:
            columns += [TimeElapsedColumn()]
        console = stderr if stderr.is_terminal else Console(stderr=True, force_terminal=False)
        return RichProgress(*columns, console=console, transient=stderr.is_terminal)

    @contextmanager
    def status(self, description: str):
        """A stage whose description the caller updates: ``with p.status("x") as update: update("y")``."""
        if not self.enabled:
            yield lambda text: None
            return
        with self._progress(bar=False) as p:
            task = p.add_task(description, total=None)
            yield lambda text: p.update(task, description=text)

    @contextmanager
    def bar(self, description: str, total: int):
        if not self.enabled:
            yield lambda n=1: None
            return
        with self._progress(bar=True) as p:
            task = p.add_task(description, total=total)
            yield lambda n=1: p.advance(task, n)


def progress(quiet: bool = False, as_json: bool = False) -> Progress:
    """The progress reporter for a command (see :func:`progress_enabled`)."""
    return Progress(progress_enabled(quiet, as_json), notes=not as_json)
