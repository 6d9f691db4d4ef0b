"""`geobias probe malor`: mean absolute log ratio of gendered terms (Hossain et al. 2025)."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import probe_app
from geobias.cli._engine import Actors, EngineOpt, RayAddress, Threads, open_engine, record_engine
from geobias.cli._options import Json, emit, stderr
from geobias.cli.probe_association import BatchSize, Device, ModelOpt


def _render(console, res) -> None:
    from rich.table import Table

    console.print(f"MALoR ({res.pair}) of {res.model}: [bold]{res.malor:.4f}[/bold] bits "
                  f"over {res.n_occupations} occupations x {res.n_templates} templates")
    if res.reverse_malor is not None:
        console.print(f"reverse MALoR (occupation masked): {res.reverse_malor:.4f} bits")
    if res.missing_names:
        console.print(f"names not single tokens (left out): {', '.join(res.missing_names)}")
    if res.missing_occupations:
        console.print(f"occupations not single tokens (left out of the reverse probe): {', '.join(res.missing_occupations)}")
    t = Table(title="most gender-skewed occupations (log2 P(male)/P(female); + = male)")
    for c in ("occupation", "forward", "reverse"):
        t.add_column(c, justify="right")
    for o in sorted(res.per_occupation, key=lambda o: -abs(o.log2_ratio))[:15]:
        t.add_row(o.occupation, f"{o.log2_ratio:+.3f}", "-" if o.reverse_log2_ratio is None else f"{o.reverse_log2_ratio:+.3f}")
    console.print(t)


@probe_app.command("malor")
def malor(
    model: ModelOpt,
    pair: Annotated[str, typer.Option("--pair", help="he-she, his-her or names.")] = "he-she",
    batch_size: BatchSize = 32,
    device: Device = "auto",
    engine: EngineOpt = "local",
    ray_address: RayAddress = "local",
    threads: Threads = None,
    actors: Actors = None,
    as_json: Json = False,
) -> None:
    """MALoR = (1/M) sum_occ |(1/N) sum_templates log2 P(male)/P(female)| and the reverse probe."""
    from geobias.contextual.malor import MalorPair, malor_probe
    from geobias.validation import check_choice

    check_choice("pair", pair, MalorPair)
    with open_engine(engine, ray_address, threads, actors) as eng:
        record_engine(eng)
        res = malor_probe(eng.load_masked_lm(model, device), pair, batch_size=batch_size, progress=stderr.is_terminal)
    emit(res, as_json, _render)
