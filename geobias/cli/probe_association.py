"""`geobias probe association`: Kurita et al. (2019) association of target and attribute words."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import probe_app
from geobias.cli._engine import Actors, EngineOpt, RayAddress, Threads
from geobias.cli._options import Csv, Json, ModelTrustPickle
from geobias.cli._run import invoke

ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        help="Masked LM: Hugging Face id, local directory, or registry name (minilm-l6 has no MLM head).",
    ),
]
BatchSize = Annotated[int, typer.Option("--batch-size", help="Distinct masked inputs per forward pass.")]
Device = Annotated[str, typer.Option("--device", help="auto (CUDA when available), cpu, cuda, cuda:N.")]


@probe_app.command("association")
def association(
    model: ModelOpt,
    sentences: Annotated[Path, typer.Option("--sentences", help="TSV with columns sentence, target, attribute.")],
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
    """Association log(p_T / p_prior) of each sentence's target with its attribute (Kurita et al. 2019).

    Example: geobias probe association --model bert-base-uncased --sentences probes.tsv
    """
    invoke("probe association", locals())
