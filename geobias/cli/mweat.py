"""``geobias mweat``: MWEAT (Zhou et al. 2019) on a store."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import (
    Json,
    Limit,
    OptLang,
    Quiet,
    Seed,
    Subwords,
    TrustPickle,
    Vectors,
    emit,
    progress,
)
from geobias.errors import InputError

#: Most partitions a permutation test evaluates without ``--force`` (about 2 minutes for
#: 100 items at ~1 M partitions/s on one core; the estimate for the actual run is printed).
MAX_PERMUTATIONS = 100_000_000

Permutations = Annotated[int, typer.Option("--permutations", "-n", help=(
    "Monte-Carlo permutations (with --method auto, the exact test when fewer partitions exist). "
    f"More than {MAX_PERMUTATIONS:,} partitions need --force."))]
MethodOpt = Annotated[str, typer.Option("--method", help=(
    "Permutation test: exact (enumerate every partition), monte-carlo (-n random permutations) or auto "
    "(exact when there are at most -n partitions)."))]
Force = Annotated[bool, typer.Option("--force", help=f"Run a permutation test above {MAX_PERMUTATIONS:,} partitions.")]
Similarity = Annotated[str, typer.Option("--similarity", help="cosine, or dot (raw dot products, to reproduce notebooks).")]
Oov = Annotated[
    str,
    typer.Option(
        "--oov",
        help="Out-of-vocabulary words: ignore (skip and list them in the result; a list whose words "
        "are all missing is an error) or raise (stop at the first missing word).",
    ),
]


def check_permutations(n: int) -> None:
    if n <= 0:
        raise InputError(f"--permutations must be a positive integer; got {n}")


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.1f} s"


def estimate_seconds(n_items: int, n_x: int, draws: int, *, paired: bool = False) -> float:
    """Seconds ``draws`` partitions of ``n_items`` scores take here, from a 20,000-draw run."""
    import numpy as np

    from geobias.metrics import permutation_test

    calib = 20_000
    scores = np.random.default_rng(0).random(n_items)
    t0 = time.perf_counter()
    permutation_test(scores, n_x, n_permutations=calib, method="monte-carlo", paired=paired)
    return (time.perf_counter() - t0) / calib * draws


def plan_permutations(
    n_items: int, n_x: int, permutations: int, method: str, *, paired: bool = False, force: bool = False
) -> int:
    """Check a permutation budget before any work; return the partitions the test will evaluate.

    ``n_items``/``n_x`` are the sizes before out-of-vocabulary words are dropped (an upper
    bound). Raises :class:`InputError` for a bad ``--method``, an exact test beyond
    :data:`geobias.stats.permutation.MAX_EXACT`, or more than :data:`MAX_PERMUTATIONS`
    partitions without ``--force`` (the message gives the estimated time).
    """
    from geobias.stats.permutation import MAX_EXACT, n_partitions

    check_permutations(permutations)
    if method not in ("auto", "exact", "monte-carlo"):
        raise InputError(f"--method must be auto, exact or monte-carlo; got {method!r}")
    if n_items < 2 or not 1 <= n_x < n_items:
        return permutations  # the metric reports the empty set itself
    count = n_partitions(n_items, n_x, paired=paired and n_items == 2 * n_x)
    if method == "exact" and count > MAX_EXACT:
        raise InputError(f"--method exact: {count:.3g} partitions exceed the exact limit of {MAX_EXACT:,}; "
                         "use --method monte-carlo (or auto)")
    draws = count if method == "exact" or (method == "auto" and count <= permutations) else permutations
    if draws > MAX_PERMUTATIONS and not force:
        secs = estimate_seconds(n_items, n_x, draws, paired=paired and n_items == 2 * n_x)
        raise InputError(
            f"{draws:,} permutations would take about {_duration(secs)} here; the limit without --force is "
            f"{MAX_PERMUTATIONS:,} (at the default 100,000 the p-value's Monte-Carlo standard error is at most 0.0016)"
        )
    return draws


def run_with_progress(ui, draws: int, n_items: int, n_x: int, paired: bool, fn):
    """Call ``fn(progress_callback)`` with a permutation bar when the run is long (> ~2 s)."""
    if not ui.enabled or draws < 1_000_000 or estimate_seconds(n_items, n_x, draws, paired=paired) < 2:
        return fn(None)
    with ui.bar("permutations", draws) as advance:
        return fn(advance)


def word_set(value: str, option: str) -> list[str]:
    """A word set given on the command line: a file (one word per line, # comments) or an inline
    comma-separated list (``--targets-x "nurse,teacher"``)."""
    from geobias.wordlists import read_word_file

    p = Path(value).expanduser()
    try:
        exists = p.exists()
    except OSError:  # e.g. a long inline list is not a valid file name
        exists = False
    if exists:
        return read_word_file(p)
    if "," not in value and ("/" in value or p.suffix.lower() in {".txt", ".tsv", ".csv", ".lst"}):
        raise InputError(f"{option}: no such file {value} (give a file, or words separated by commas)")
    words = [w.strip() for w in value.split(",")]
    words = [w for w in words if w]
    if not words:
        raise InputError(f"{option}: no words in {value!r}")
    dup = next((w for i, w in enumerate(words) if w in words[:i]), None)
    if dup is not None:
        raise InputError(f"{option}: word {dup!r} is given twice")
    return words


def need_lang(lang: str | None, what: str) -> str:
    if lang is None:
        raise InputError(f"pass --lang to use the built-in {what} (or give your own file)")
    return lang


@app.command("mweat")
def mweat_command(
    lang: OptLang = None,
    vectors: Vectors = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    subwords: Subwords = False,
    targets: Annotated[
        Path | None,
        typer.Option("--targets", help="TSV of occupations: feminine<TAB>masculine[<TAB>english] per line; # comments."),
    ] = None,
    attributes: Annotated[
        Path | None,
        typer.Option("--attributes", help="TSV of attribute words: male<TAB>female per line (a cell may be empty or '-')."),
    ] = None,
    permutations: Permutations = 100_000,
    method: MethodOpt = "auto",
    force: Force = False,
    seed: Seed = 0,
    similarity: Similarity = "cosine",
    paired: Annotated[bool, typer.Option("--paired", help="Permute only within each pair (an extension; the paper permutes X∪Y).")] = False,
    oov: Oov = "ignore",
    top: Annotated[int, typer.Option("--top", help="Pairs shown in the table.")] = 10,
    targets_x: Annotated[str | None, typer.Option(
        "--targets-x", help="Masculine forms: a file (one per line) or a comma list; with --targets-y, "
        "paired by position, instead of --targets.")] = None,
    targets_y: Annotated[str | None, typer.Option(
        "--targets-y", help="Feminine forms, same length and order as --targets-x.")] = None,
    attributes_a: Annotated[str | None, typer.Option(
        "--attributes-a", help="Male attribute words: a file or a comma list (with --attributes-b, instead of --attributes).")] = None,
    attributes_b: Annotated[str | None, typer.Option(
        "--attributes-b", help="Female attribute words: a file or a comma list.")] = None,
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """MWEAT: | |Σ s(masculine forms)| − |Σ s(feminine forms)| | with a one-sided permutation p-value."""
    from geobias import wordlists
    from geobias.metrics import mweat
    from geobias.report.tables import mweat_table, render
    from geobias.wordlists import read_attribute_file

    if (targets_x is None) != (targets_y is None):
        raise typer.BadParameter("give both --targets-x and --targets-y, or neither")
    if (attributes_a is None) != (attributes_b is None):
        raise typer.BadParameter("give both --attributes-a and --attributes-b, or neither")
    if targets_x is not None and targets is not None:
        raise typer.BadParameter("give --targets or --targets-x/--targets-y, not both")
    if attributes_a is not None and attributes is not None:
        raise typer.BadParameter("give --attributes or --attributes-a/--attributes-b, not both")
    check_permutations(permutations)
    if targets_x is not None:
        masc, fem = word_set(targets_x, "--targets-x"), word_set(targets_y, "--targets-y")
        if len(masc) != len(fem):
            raise InputError(f"--targets-x has {len(masc)} words and --targets-y {len(fem)}; "
                             "they pair masculine and feminine forms by position")
        from geobias.wordlists import Occupation

        occupations = [Occupation(f, m, m) for m, f in zip(masc, fem, strict=True)]
    elif targets is not None:
        occupations = wordlists.read_occupation_file(targets)
    else:
        occupations = wordlists.occupations(need_lang(lang, "occupation list"))
    if attributes_a is not None:
        male, female = word_set(attributes_a, "--attributes-a"), word_set(attributes_b, "--attributes-b")
    elif attributes is not None:
        male, female = read_attribute_file(attributes)
    else:
        male, female = wordlists.attribute_words(need_lang(lang, "attribute words"))
    n_items = 2 * len(occupations)
    draws = plan_permutations(n_items, len(occupations), permutations, method, paired=paired, force=force)
    from geobias.sources import resolve_store

    ui = progress(quiet, as_json)
    wanted = [w for o in occupations for w in (o.masculine, o.feminine)] + male + female
    with ui.stage("loading vectors"):
        store = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle,
                              subword_words=wanted if subwords else None)
    result = run_with_progress(ui, draws, n_items, len(occupations), paired, lambda advance: mweat(
        store, occupations, male, female,
        n_permutations=permutations, seed=seed, similarity=similarity, paired=paired, oov=oov,
        method=method, progress=advance,
    ))
    emit(result, as_json, lambda console, r: render(console, mweat_table(r, top=top)))
