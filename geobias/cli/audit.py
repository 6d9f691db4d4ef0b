"""`geobias audit`: stores x tests x languages from a TOML config, one JSON report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._engine import EngineOpt, RayAddress, Threads
from geobias.cli._options import Csv, Force, Json, ModelTrustPickle, stderr
from geobias.cli._run import invoke


@app.command("audit")
def audit(
    config: Annotated[Path, typer.Option("--config", "-c", help="Audit config (TOML): stores, languages, tests, [options]; see docs/ray.md.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the JSON report (the --json envelope) to this file.")] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing report.")] = False,
    force: Force = False,
    engine: EngineOpt = "local",
    ray_address: RayAddress = "local",
    threads: Threads = None,
    trust_pickle: ModelTrustPickle = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """Run every store x test x language cell (a Ray task each with --engine ray); a failing cell
    reports its error and the grid goes on.

    Example: geobias audit --config audit.toml --out report.json
    """
    options = {k: v for k, v in locals().items() if k not in ("out", "overwrite")}  # the model's fields
    from geobias.io.atomic import atomic_write, check_output_path

    if out is not None:
        check_output_path(out, what="report", overwrite=overwrite)  # fail before the grid runs
    _, env = invoke("audit", options)
    if out is not None:
        # written only once every cell has finished: never a partial report
        with atomic_write(out, mode="w", what="report", overwrite=overwrite) as fh:
            fh.write(json.dumps(env, indent=2, ensure_ascii=False) + "\n")
        if not as_json:
            stderr.print(f"report written to {out}")
