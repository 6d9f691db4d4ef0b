"""`geobias probe malor`: mean absolute log ratio of gendered terms (Hossain et al. 2025)."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import probe_app
from geobias.cli._choices import MalorPairChoice
from geobias.cli._engine import Actors, EngineOpt, RayAddress, Threads, open_engine, record_engine
from geobias.cli._options import Json, emit, stderr
from geobias.cli.probe_association import BatchSize, Device, ModelOpt
from geobias.report.contextual import render_malor


@probe_app.command("malor")
def malor(
    model: ModelOpt,
    pair: Annotated[MalorPairChoice, typer.Option("--pair", help="The gendered words compared: pronouns (he-she, his-her) or first names.")] = "he-she",
    batch_size: BatchSize = 32,
    device: Device = "auto",
    engine: EngineOpt = "local",
    ray_address: RayAddress = "local",
    threads: Threads = None,
    actors: Actors = None,
    as_json: Json = False,
) -> None:
    """MALoR = (1/M) sum_occ |(1/N) sum_templates log2 P(male)/P(female)| and the reverse probe.

    Example: geobias probe malor --model bert-base-uncased --pair names
    """
    from geobias.contextual.malor import MalorPair, malor_probe
    from geobias.validation import check_choice

    check_choice("pair", pair, MalorPair)
    with open_engine(engine, ray_address, threads, actors) as eng:
        record_engine(eng)
        res = malor_probe(eng.load_masked_lm(model, device), pair, batch_size=batch_size, progress=stderr.is_terminal)
    emit(res, as_json, render_malor)
