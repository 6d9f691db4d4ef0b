"""`geobias probe malor`: mean absolute log ratio of gendered terms (Hossain et al. 2025)."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import probe_app
from geobias.cli._choices import MalorPairChoice
from geobias.cli._engine import Actors, EngineOpt, RayAddress, Threads
from geobias.cli._options import Csv, Json, ModelTrustPickle
from geobias.cli._run import invoke
from geobias.cli.probe_association import BatchSize, Device, ModelOpt


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
    trust_pickle: ModelTrustPickle = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """MALoR = (1/M) sum_occ |(1/N) sum_templates log2 P(male)/P(female)| and the reverse probe.

    Example: geobias probe malor --model bert-base-uncased --pair names
    """
    invoke("probe malor", locals())
