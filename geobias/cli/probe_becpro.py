"""`geobias probe becpro`: BEC-Pro associations, group tests, plot, model comparison."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import probe_app
from geobias.cli._engine import Actors, EngineOpt, RayAddress, Threads, open_engine, record_engine
from geobias.cli._options import Json, Plot, emit, stderr
from geobias.cli.probe_association import BatchSize, Device, ModelOpt


def _render(console, res) -> None:
    from rich.table import Table

    from geobias.contextual.becpro import BecProComparison

    if isinstance(res, BecProComparison):
        _render(console, res.pre)
        _render(console, res.post)
        t = Table(title=f"pre ({res.pre.model}) vs post ({res.post.model}): Wilcoxon signed-rank")
        for c in ("professions", "person", "mean pre", "mean post", "W", "p", "z", "r = z/√N", "N"):
            t.add_column(c, justify="right")
        for c in res.tests:
            w = c.test
            t.add_row(c.group, c.gender, f"{c.mean_pre:+.4g}", f"{c.mean_post:+.4g}", f"{w.statistic:.0f}",
                      f"{w.p_value:.3g}", f"{w.z:+.2f}", f"{w.r:+.3f}", str(w.n))
        console.print(t)
        return
    t = Table(title=f"BEC-Pro {res.lang.upper()} — mean association ln(p_T/p_prior), {res.model}")
    t.add_column("professions")
    t.add_column("male person words", justify="right")
    t.add_column("female person words", justify="right")
    cells = {(c.group, c.gender): c for c in res.table}
    for g in ("male", "female", "balanced"):
        m, f = cells[(g, "male")], cells[(g, "female")]
        t.add_row(g, f"{m.mean:+.4g} (sd {m.std:.3g})", f"{f.mean:+.4g} (sd {f.std:.3g})")
    console.print(t)
    w = Table(title="male vs female person words, Wilcoxon signed-rank (paired by template, profession, person pair)")
    for c in ("professions", "W", "p", "z", "r = z/√N", "N pairs", "mean diff"):
        w.add_column(c, justify="right")
    for gt in res.tests:
        x = gt.test
        w.add_row(gt.group, f"{x.statistic:.0f}", f"{x.p_value:.3g}", f"{x.z:+.2f}", f"{x.r:+.3f}", str(x.n), f"{x.mean_difference:+.4g}")
    console.print(w)
    console.print(
        f"{res.n_sentences} sentences; forward passes: {res.n_distinct_target_masked} target-masked + "
        f"{res.n_distinct_prior_masked} prior inputs"
    )


@probe_app.command("becpro")
def becpro(
    model: ModelOpt,
    lang: Annotated[str, typer.Option("--lang", "-l", help="en or de.")] = "en",
    compare: Annotated[
        str | None, typer.Option("--compare", help="Second model (e.g. after fine-tuning): test pre vs post.")
    ] = None,
    batch_size: BatchSize = 32,
    device: Device = "auto",
    prior_mask: Annotated[str, typer.Option(
        "--prior-mask", help="p_prior's profession mask: 'word' (Bartl et al.: one [MASK] per word) or "
        "'subtoken' (ours: every sub-token masked).")] = "word",
    engine: EngineOpt = "local",
    ray_address: RayAddress = "local",
    threads: Threads = None,
    actors: Actors = None,
    plot: Plot = None,
    as_json: Json = False,
) -> None:
    """Mean association per profession group x person gender (Bartl et al. 2020, Table 4) and tests."""
    from geobias.contextual.becpro import BecProLang, becpro_probe, compare_becpro
    from geobias.contextual.masking import PriorMask
    from geobias.io.atomic import check_output_path
    from geobias.report.plots import plot_becpro, save_figure
    from geobias.validation import check_choice

    check_choice("lang", lang, BecProLang)
    check_choice("--prior-mask", prior_mask, PriorMask)
    if plot is not None:
        check_output_path(plot, what="plot")  # fail before the probe, not after it
    progress = stderr.is_terminal
    with open_engine(engine, ray_address, threads, actors) as eng:
        record_engine(eng)
        res = becpro_probe(eng.load_masked_lm(model, device), lang, batch_size=batch_size, progress=progress,
                           prior_mask=prior_mask)
        out = res
        if compare is not None:
            post = becpro_probe(eng.load_masked_lm(compare, device), lang, batch_size=batch_size,
                                progress=progress, prior_mask=prior_mask)
            out = compare_becpro(res, post)
    if plot is not None:
        save_figure(plot_becpro(res), plot, dpi=120)
    emit(out, as_json, _render)
    if plot is not None and not as_json:
        stderr.print(f"plot written to {plot}")
