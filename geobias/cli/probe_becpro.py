"""`geobias probe becpro`: BEC-Pro associations, group tests, plot, model comparison."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import probe_app
from geobias.cli._choices import BecProLangChoice, PriorMaskChoice
from geobias.cli._engine import Actors, EngineOpt, RayAddress, Threads
from geobias.cli._options import Csv, Json, ModelTrustPickle, Plot, PlotForce
from geobias.cli._run import invoke
from geobias.cli.probe_association import BatchSize, Device, ModelOpt


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
    force: PlotForce = False,
    trust_pickle: ModelTrustPickle = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """Mean association per profession group x person gender (Bartl et al. 2020, Table 4) and tests.

    Example: geobias probe becpro --model bert-base-cased --lang en --plot becpro.png
    """
    invoke("probe becpro", locals())
