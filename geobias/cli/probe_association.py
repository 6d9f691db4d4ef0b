"""`geobias probe association`: Kurita et al. (2019) association of target and attribute words."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import probe_app
from geobias.cli._engine import Actors, EngineOpt, RayAddress, Threads, open_engine, record_engine
from geobias.cli._options import Json, emit, stderr

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


def read_probe_tsv(path: Path):
    """Read a TSV with columns sentence, target, attribute (aliases: Sentence, Person, Profession)."""
    from geobias.contextual.masking import ProbeSentence
    from geobias.errors import InputError
    from geobias.io.atomic import read_text

    aliases = {"sentence": "sentence", "target": "target", "person": "target", "attribute": "attribute", "profession": "attribute"}
    reader = csv.reader(io.StringIO(read_text(path, what="sentences")), delimiter="\t")
    header = next(reader, None)
    if header is None:
        raise InputError(f"{path}: empty file")
    cols = {aliases[h.strip().lower()]: i for i, h in enumerate(header) if h.strip().lower() in aliases}
    missing = [c for c in ("sentence", "target", "attribute") if c not in cols]
    if missing:
        raise InputError(f"{path}: line 1: missing column(s) {', '.join(missing)} (need sentence, target, attribute)")
    out = []
    for row in reader:
        if not row or not any(f.strip() for f in row):
            continue
        try:
            out.append(ProbeSentence.from_words(row[cols["sentence"]], row[cols["target"]], row[cols["attribute"]]))
        except IndexError:
            raise InputError(f"{path}: line {reader.line_num}: too few fields") from None
        except InputError as exc:
            raise InputError(f"{path}: line {reader.line_num}: {exc}") from None
    if not out:
        raise InputError(f"{path}: no sentences")
    return out


def _render(console, res) -> None:
    from rich.table import Table

    t = Table(title=f"Kurita association — {res.model}")
    for c in ("sentence", "ln p_T", "ln p_prior", "association"):
        t.add_column(c, justify="left" if c == "sentence" else "right")
    for s, a, b, c in zip(res.sentences[:50], res.log_p_target, res.log_p_prior, res.association, strict=False):
        t.add_row(s, f"{a:.4f}", f"{b:.4f}", f"{c:+.4f}")
    console.print(t)
    if len(res.sentences) > 50:
        console.print(f"(first 50 of {len(res.sentences)} sentences; --json prints all)")
    console.print(
        f"mean association {res.association.mean():+.4f} over {len(res.sentences)} sentences; "
        f"forward passes: {res.n_distinct_target_masked} target-masked + {res.n_distinct_prior_masked} prior inputs"
    )


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
    as_json: Json = False,
) -> None:
    """Association log(p_T / p_prior) of each sentence's target with its attribute (Kurita et al. 2019)."""
    from geobias.contextual.association import kurita_association

    probes = read_probe_tsv(sentences)
    with open_engine(engine, ray_address, threads, actors) as eng:
        record_engine(eng)
        res = kurita_association(eng.load_masked_lm(model, device), probes, batch_size=batch_size,
                                 progress=stderr.is_terminal)
    emit(res, as_json, _render)
