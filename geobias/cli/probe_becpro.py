"""`geobias probe becpro`: BEC-Pro associations, group tests, plot, model comparison."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import probe_app
from geobias.cli._choices import BecProLangChoice, PriorMaskChoice
from geobias.cli._engine import Actors, EngineOpt, RayAddress, Threads, open_engine, record_engine
from geobias.cli._options import Json, Plot, emit, stderr
from geobias.cli.probe_association import BatchSize, Device, ModelOpt
from geobias.report.contextual import render_becpro


@probe_app.command("becpro")
def becpro(
    model: ModelOpt,
    lang: Annotated[BecProLangChoice, typer.Option("--lang", "-l", help="Language of the BEC-Pro templates.")] = "en",
    compare: Annotated[
        str | None, typer.Option("--compare", help="Second model (e.g. after fine-tuning): test pre vs post.")
    ] = None,
    batch_size: BatchSize = 32,
    device: Device = "auto",
    prior_mask: Annotated[PriorMaskChoice, typer.Option(
        "--prior-mask", help="p_prior's profession mask: 'word' (Bartl et al.: one [MASK] per word) or "
        "'subtoken' (ours: every sub-token masked).")] = "word",
    engine: EngineOpt = "local",
    ray_address: RayAddress = "local",
    threads: Threads = None,
    actors: Actors = None,
    plot: Plot = None,
    as_json: Json = False,
) -> None:
    """Mean association per profession group x person gender (Bartl et al. 2020, Table 4) and tests.

    Example: geobias probe becpro --model bert-base-cased --lang en --plot becpro.png
    """
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
    emit(out, as_json, render_becpro)
    if plot is not None and not as_json:
        stderr.print(f"plot written to {plot}")
